// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TClaim, TRiskSignal } from '@protection-service/sdk';
import { claimPath } from '../paths';
import { RiskBadge, SIGNAL_WORDS } from '../words';
import { evidenceUrls, type OwnFiles } from './evidence';

/**
 * A claim's risk (D57): its level, and each signal in words with its evidence, the related
 * claims one click away and, for a photo sent again, this claim's photos beside the other
 * claim's. A signal informs the person who decides; it never decides.
 */
export function Risk(props: { storeId: string; claim: TClaim; reused: readonly TClaim[]; own: OwnFiles }) {
  const { storeId, claim } = props;
  const { level, signals } = claim.risk;
  return (
    <section class="card risk-card" aria-labelledby="risk">
      <h2 id="risk">
        Risk <RiskBadge level={level} />
      </h2>
      {signals.length === 0 ? (
        <p>Nothing in the store's own data speaks against this claim.</p>
      ) : (
        <ul class="signals">
          {signals.map((signal) => (
            <li>
              <strong>{SIGNAL_WORDS[signal.code] ?? signal.code}</strong>
              <span class="text">{signal.detail}</span>
              <Related storeId={storeId} signal={signal} />
              {signal.code === 'photo_reused' ? (
                <ReusedPhotos storeId={storeId} claim={claim} others={props.reused} own={props.own} />
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <p class="muted">These signals inform your decision; none of them decides the claim.</p>
    </section>
  );
}

function Related(props: { storeId: string; signal: TRiskSignal }) {
  const ids = props.signal.relatedClaimIds;
  if (ids.length === 0) return null;
  return (
    <span>
      {ids.length === 1 ? 'The other claim: ' : 'The other claims: '}
      {ids.map((id, i) => (
        <>
          {i > 0 ? ', ' : ''}
          <a href={claimPath(props.storeId, id)}>Claim {id}</a>
        </>
      ))}
    </span>
  );
}

/** This claim's photos beside each other claim's where one of them was sent again (D57). */
function ReusedPhotos(props: { storeId: string; claim: TClaim; others: readonly TClaim[]; own: OwnFiles }) {
  const { claim, own } = props;
  return (
    <>
      {props.others.map((other) => (
        <div class="side-by-side">
          <figure>
            <Photos urls={evidenceUrls(claim)} own={own} name="This claim" />
            <figcaption>This claim</figcaption>
          </figure>
          <figure>
            <Photos urls={evidenceUrls(other)} own={own} name={`Claim ${other.id}`} />
            <figcaption>
              <a href={claimPath(props.storeId, other.id)}>Claim {other.id}</a>
            </figcaption>
          </figure>
        </div>
      ))}
    </>
  );
}

/** A claim's photos among the service's own files, as thumbnails (D56): the ones compared (D57). */
function Photos(props: { urls: readonly string[]; own: OwnFiles; name: string }) {
  const photos = props.urls.filter((url) => own(props.own, url));
  if (photos.length === 0) return <p class="muted">No photo to show</p>;
  return (
    <ul class="photos thumbs">
      {photos.map((url, i) => (
        <li>
          <a href={url}>
            <img src={url} alt={`${props.name}, ${i + 1} of ${photos.length}`} width="96" height="96" loading="lazy" />
          </a>
        </li>
      ))}
    </ul>
  );
}

const own = (files: OwnFiles, url: string) => {
  const type = files.get(url);
  return type != null && type !== 'application/pdf';
};
