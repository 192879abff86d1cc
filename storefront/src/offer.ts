import { startsChecked } from './consent';

/**
 * `<protection-offer>` (D55): shows a shopper the store's protection offer at cart or checkout
 * from one read, D29's public quote, and carries the choice in the page's form. Plain DOM in a
 * shadow root, one constructable stylesheet (no inline style, so a strict CSP holds), no
 * cookie, no storage, no request but the quote. Whatever goes wrong, it shows nothing and
 * throws nothing into the page.
 */

interface Widget {
  status: string;
  config: Record<string, unknown>;
}
interface Answer {
  automaticallyAddToCart: boolean;
  autoAddCountryBlockList: string[];
  autoAddStateBlockList: string[];
  quote?: { eligible: boolean; customerAmount: number; currency: string; policyType: string };
  widget?: { config: Widget | null; infoModal: Widget | null };
  offer?: { token: string };
}
interface Shown {
  token: string;
  amount: number;
  currency: string;
  policyType: string;
}

const ATTRIBUTES = [
  'store',
  'subtotal',
  'currency',
  'placement',
  'country',
  'region',
  'partner-app-id',
  'variant',
  'api-base',
];
const TIMEOUT_MS = 2000;
const REPRICE_MS = 250;
const FIELD = 'protection_offer';

/** The origin the script came from: the default `api-base`. */
const SCRIPT_ORIGIN = (() => {
  try {
    return new URL((document.currentScript as HTMLScriptElement | null)?.src ?? location.href).origin;
  } catch {
    return '';
  }
})();

const CSS = `
:host{display:block;font:inherit;color:inherit;container-type:inline-size}
.o{min-height:var(--protection-offer-height,3.5em);box-sizing:border-box}
@container (max-width:36em){.o{min-height:var(--protection-offer-height,5.5em)}}
.r{display:flex;flex-wrap:wrap;align-items:center;gap:.5em;min-height:24px}
input{width:24px;height:24px;margin:0;flex:none;accent-color:var(--protection-offer-accent,var(--cfg-accent,#1d4ed8))}
label{cursor:pointer}
p{margin:.25em 0 0}
button{font:inherit;min-height:24px;min-width:24px;padding:2px 4px;background:none;border:0;color:inherit;text-decoration:underline;cursor:pointer}
button:focus-visible,input:focus-visible{outline:2px solid var(--protection-offer-accent,var(--cfg-accent,#1d4ed8));outline-offset:2px}
dialog{max-width:32em;border:1px solid;border-radius:6px;padding:1em 1.25em;color:CanvasText;background:Canvas}
dialog h2{font-size:1.1em;margin:0 0 .5em}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
@media (prefers-reduced-motion:no-preference){dialog[open]{animation:f .15s ease-out}@keyframes f{from{opacity:0}}}
@media (prefers-color-scheme:dark){dialog{border-color:#666}}
`;

const sheet = new CSSStyleSheet();
sheet.replaceSync(CSS);

/** A plain-text config value (never HTML), else the default. */
function text(config: Record<string, unknown> | undefined, key: string, fallback: string): string {
  const v = config?.[key];
  return typeof v === 'string' && v.trim() !== '' ? v : fallback;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, string> = {}, body?: string) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) node.setAttribute(k, v);
  if (body !== undefined) node.textContent = body;
  return node;
}

class ProtectionOffer extends HTMLElement {
  static formAssociated = true;
  static observedAttributes = ATTRIBUTES;

  #internals: ElementInternals;
  #root: ShadowRoot;
  #accent = new CSSStyleSheet();
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #shown: Shown | null = null;
  #selected = false;
  #preselected = false;
  #chosen = false;
  #live: HTMLElement | null = null;
  #box: HTMLInputElement | null = null;

  constructor() {
    super();
    this.#internals = this.attachInternals();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [sheet, this.#accent];
  }

  connectedCallback() {
    if (!this.#shown) this.#root.replaceChildren(el('div', { class: 'o' }));
    this.#state('loading');
    this.#load();
  }

  disconnectedCallback() {
    clearTimeout(this.#timer);
    this.#seq++;
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null) {
    if (!this.isConnected || old === value) return;
    clearTimeout(this.#timer);
    // A new subtotal re-prices at most once per 250 ms; any other change reads at once.
    this.#timer = setTimeout(() => this.#load(), name === 'subtotal' ? REPRICE_MS : 0);
  }

  /**
   * Back or forward to the cart: the browser hands back the state saved with the form, and the
   * shopper's own choice holds again (a choice the shopper never made restores nothing).
   */
  formStateRestoreCallback(state: unknown, mode: string) {
    if (mode !== 'restore' || (state !== 'on' && state !== 'off')) return;
    this.#chosen = true;
    this.#choose(state === 'on', this.#box !== null);
  }

  formResetCallback() {
    this.#chosen = false;
    this.#choose(this.#preselected, false);
  }

  get selected(): boolean {
    return this.#selected;
  }

  get offer(): Shown | null {
    return this.#shown;
  }

  #state(name: 'loading' | 'ready' | 'included' | 'hidden') {
    try {
      for (const s of ['loading', 'ready', 'included', 'hidden']) this.#internals.states.delete(s);
      this.#internals.states.add(name);
    } catch {
      // CustomStateSet is missing in older browsers: the states are a convenience only.
    }
  }

  #url(): string | null {
    const store = this.getAttribute('store');
    const subtotal = Number(this.getAttribute('subtotal'));
    if (!store || !Number.isFinite(subtotal) || subtotal < 0) return null;
    const base = this.getAttribute('api-base') || SCRIPT_ORIGIN;
    const placement = this.getAttribute('placement') === 'checkout' ? 'checkout' : 'cart';
    const q = new URLSearchParams({ store_url: store, subtotal: String(subtotal), placement });
    // The cohort as query parameters, not D29's headers: a read with no custom header needs no
    // CORS preflight, so the element's one read stays one request.
    const app = this.getAttribute('partner-app-id');
    const variant = this.getAttribute('variant');
    if (app && variant) {
      q.set('partnerAppId', app);
      q.set('partnerVariant', variant);
    }
    return `${base.replace(/\/+$/, '')}/v1/quote/insurance?${q}`;
  }

  async #load() {
    const seq = ++this.#seq;
    const url = this.#url();
    if (!url) return this.#hide();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
    try {
      const res = await fetch(url, { credentials: 'omit', signal: abort.signal });
      if (!res.ok) throw new Error(String(res.status));
      const answer = (await res.json()) as Answer;
      if (seq === this.#seq) this.#show(answer);
    } catch {
      if (seq === this.#seq) this.#hide();
    } finally {
      clearTimeout(timer);
    }
  }

  #hide() {
    this.#shown = null;
    this.#box = null;
    this.#live = null;
    this.#internals.setFormValue(null);
    // The reserved box stays, empty: taking it away would move what follows (D55: no shift).
    this.#root.replaceChildren(el('div', { class: 'o' }));
    this.#state('hidden');
  }

  #show(a: Answer) {
    const config = a.widget?.config;
    const q = a.quote;
    if (!q?.eligible || !a.offer || !config || config.status !== 'ACTIVE') return this.#hide();
    // The price in the cart's currency, which must be the quote's: a price in another is no offer.
    const currency = (this.getAttribute('currency') || q.currency).toUpperCase();
    if (currency !== q.currency) return this.#hide();
    const repriced = this.#shown !== null;
    const shown = { token: a.offer.token, amount: q.customerAmount, currency, policyType: q.policyType };
    this.#shown = shown;
    const accent = config.config.accentColor;
    this.#accent.replaceSync(
      typeof accent === 'string' && /^#[0-9a-f]{6}$/i.test(accent) ? `:host{--cfg-accent:${accent}}` : '',
    );
    let price: string;
    try {
      // The page's language where the element sits (its own `lang` or an ancestor's).
      const lang = (this.closest('[lang]') as HTMLElement | null)?.lang || undefined;
      price = new Intl.NumberFormat(lang, {
        style: 'currency',
        currency: shown.currency,
      }).format(shown.amount);
    } catch {
      price = `${shown.amount} ${shown.currency}`;
    }
    if (shown.amount === 0) return this.#included(config);
    if (!this.#chosen || !repriced)
      this.#preselected = startsChecked(a, this.getAttribute('country'), this.getAttribute('region'));
    const label = text(config.config, 'label', 'Add shipping protection for {price}').split('{price}').join(price);
    if (repriced && this.#box && this.#live) {
      this.#root.querySelector('label')!.textContent = label;
      this.#live.textContent = label;
      this.#choose(this.#chosen ? this.#selected : this.#preselected, true);
      return;
    }
    this.#render(label, config, a.widget?.infoModal ?? null);
    this.#choose(this.#chosen ? this.#selected : this.#preselected, false);
    this.#state('ready');
  }

  #included(config: Widget) {
    const box = el('div', { class: 'o', part: 'container' });
    box.append(el('p', { part: 'label' }, 'Shipping protection included'));
    const description = text(config.config, 'description', '');
    if (description) box.append(el('p', { part: 'description' }, description));
    this.#root.replaceChildren(box);
    this.#box = null;
    this.#selected = true;
    this.#internals.setFormValue(this.#formValue());
    this.#state('included');
  }

  #render(label: string, config: Widget, modal: Widget | null) {
    const box = el('div', { class: 'o', part: 'container' });
    const row = el('div', { class: 'r' });
    const input = el('input', { type: 'checkbox', id: 'c', part: 'checkbox' });
    const description = text(config.config, 'description', '');
    if (description) input.setAttribute('aria-describedby', 'd');
    input.addEventListener('change', () => {
      this.#chosen = true;
      this.#choose(input.checked, true);
    });
    row.append(input, el('label', { for: 'c', part: 'label' }, label));
    // "Learn more" sits on the label's line, so the reserved height holds the whole offer.
    if (!modal || modal.status === 'ACTIVE') row.append(...this.#modal(config, modal));
    box.append(row);
    if (description) box.append(el('p', { id: 'd', part: 'description' }, description));
    this.#live = el('div', { class: 'sr', 'aria-live': 'polite' });
    box.append(this.#live);
    this.#box = input;
    this.#root.replaceChildren(box);
  }

  /** "Learn more" and its native dialog, with the info modal config's plain text. */
  #modal(config: Widget, modal: Widget | null): HTMLElement[] {
    const more = el('button', { type: 'button', part: 'learn-more' }, text(config.config, 'learnMore', 'Learn more'));
    const dialog = el('dialog', { 'aria-labelledby': 't' });
    dialog.append(el('h2', { id: 't' }, text(modal?.config, 'infoTitle', 'Shipping protection')));
    const body = text(
      modal?.config,
      'infoBody',
      'If your order is lost, damaged or stolen on its way to you, the store replaces or refunds it.',
    );
    for (const paragraph of body.split(/\n\s*\n/)) dialog.append(el('p', {}, paragraph.trim()));
    const close = el('button', { type: 'button' }, 'Close');
    close.addEventListener('click', () => dialog.close());
    dialog.append(close);
    more.addEventListener('click', () => dialog.showModal());
    return [more, dialog];
  }

  #formValue(): FormData | null {
    if (!this.#selected || !this.#shown) return null;
    const data = new FormData();
    data.append(FIELD, this.#shown.token);
    return data;
  }

  #choose(selected: boolean, announce: boolean) {
    this.#selected = selected;
    if (this.#box) this.#box.checked = selected;
    // The state the browser keeps for back and forward: the shopper's choice, if any.
    this.#internals.setFormValue(this.#formValue(), this.#chosen ? (selected ? 'on' : 'off') : '');
    if (!announce || !this.#shown) return;
    const { token, amount, currency, policyType } = this.#shown;
    const detail = { selected, preselected: this.#preselected, offer: { token, amount, currency, policyType } };
    this.dispatchEvent(new CustomEvent('protection-change', { bubbles: true, composed: true, detail }));
  }
}

try {
  if (!customElements.get('protection-offer')) customElements.define('protection-offer', ProtectionOffer);
} catch {
  // Never throw into the page (D55).
}
