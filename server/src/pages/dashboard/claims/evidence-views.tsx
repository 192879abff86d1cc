// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { OwnFiles } from './evidence';

/**
 * The evidence a claim item or a message names (D56): the service's own photos as thumbnails,
 * each a link to the photo itself, and its PDFs as links, shown at once (they are served by the
 * service, with its headers). Any other address waits for "Show photos" (`show`), since loading
 * one tells its host when the claim was opened; then only `https:` ones load, as images, and
 * any other (`javascript:`, `http:`) stays plain text, never a link.
 */
export function Evidence(props: { urls: readonly string[]; label: string; own: OwnFiles; show: boolean }) {
  const { urls, label, own } = props;
  if (urls.length === 0) return <span class="muted">None</span>;
  const foreign = urls.filter((url) => !own.has(url));
  const ownUrls = urls.filter((url) => own.has(url));
  return (
    <>
      {ownUrls.length > 0 ? (
        <ul class="photos thumbs">
          {ownUrls.map((url, i) => (
            <li>
              <OwnFile url={url} type={own.get(url) ?? null} name={`${label}, file ${i + 1}`} />
            </li>
          ))}
        </ul>
      ) : null}
      {foreign.length === 0 ? null : props.show ? (
        <ForeignPhotos urls={foreign} label={label} />
      ) : (
        <span>
          {foreign.length === 1 ? '1 photo' : `${foreign.length} photos`} elsewhere
          <span class="muted"> (not loaded)</span>
        </span>
      )}
    </>
  );
}

function OwnFile(props: { url: string; type: string | null; name: string }) {
  const { url, type, name } = props;
  if (type === 'application/pdf') return <a href={url}>{name} (PDF, downloads)</a>;
  if (type === null) return <span class="muted">{name}: not available</span>;
  return (
    <a href={url} class="thumb">
      <img src={url} alt={name} width="96" height="96" loading="lazy" />
    </a>
  );
}

function ForeignPhotos(props: { urls: readonly string[]; label: string }) {
  return (
    <ul class="photos">
      {props.urls.map((url, i) =>
        isHttps(url) ? (
          <li>
            <img src={url} alt={`${props.label}, sent by the shopper (${i + 1})`} loading="lazy" />
          </li>
        ) : (
          <li>
            <span class="muted">Not shown (not an https address):</span> <code>{url}</code>
          </li>
        ),
      )}
    </ul>
  );
}

export function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}
