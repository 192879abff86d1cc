import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AFTERSHIP_SIGNATURE_HEADER,
  EASYPOST_SIGNATURE_HEADER,
  parseInbound,
  TRACKING_PROVIDERS,
  type TrackingProvider,
  verifyInbound,
} from '../../src/domain/tracking/providers';
import { deliveryProofOf, PROOF_URL_AT_MOST } from '../../src/domain/tracking/vocabulary';

const FIXTURES = new URL('./fixtures/', import.meta.url);

function fixture(provider: TrackingProvider, name: string): Buffer {
  return readFileSync(new URL(`${provider}/${name}`, FIXTURES));
}

function fixtureNames(provider: TrackingProvider): string[] {
  return readdirSync(new URL(`${provider}/`, FIXTURES)).filter(
    (name) => name.endsWith('.json') && !name.endsWith('.expected.json'),
  );
}

describe('parseInbound: each fixture reads as its expected normalised packages (D54)', () => {
  for (const provider of TRACKING_PROVIDERS) {
    for (const name of fixtureNames(provider)) {
      it(`${provider}/${name}`, () => {
        const parsed = parseInbound(provider, fixture(provider, name));
        const expected = JSON.parse(fixture(provider, name.replace(/\.json$/, '.expected.json')).toString('utf8'));
        // Dates compare as their ISO text, as the expected files hold them.
        expect(JSON.parse(JSON.stringify(parsed))).toEqual(expected);
      });
    }
  }

  it('covers delivered, stalled, lost, returned, damaged and unknown codes for every provider', () => {
    for (const provider of TRACKING_PROVIDERS) {
      expect(fixtureNames(provider)).toEqual(
        expect.arrayContaining([
          'delivered.json',
          'stalled.json',
          'lost.json',
          'returned.json',
          'damaged.json',
          'unknown-codes.json',
        ]),
      );
    }
  });

  it('reads a grouped Ship24 delivery as one package per tracking', () => {
    const parsed = parseInbound('ship24', fixture('ship24', 'several-packages.json'));
    expect(parsed.ok && parsed.packages.map((p) => p.trackingNumber)).toEqual([
      '1Z999AA10123456786',
      '00340434161094015902',
      '9400111899223817264947',
    ]);
  });

  it('gives an event without an id the same key however often it is delivered, and another event another key', () => {
    const first = parseInbound('aftership', fixture('aftership', 'delivered.json'));
    const again = parseInbound('aftership', fixture('aftership', 'delivered.json'));
    if (!first.ok || !again.ok) throw new Error('fixture did not parse');
    const keys = first.packages[0]!.events.map((event) => event.eventKey);
    expect(again.packages[0]!.events.map((event) => event.eventKey)).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('maps codes it does not know to unknown with the raw code kept, never a refusal', () => {
    for (const provider of TRACKING_PROVIDERS) {
      const parsed = parseInbound(provider, fixture(provider, 'unknown-codes.json'));
      expect(parsed.ok).toBe(true);
      const events = parsed.ok ? parsed.packages.flatMap((p) => p.events) : [];
      expect(events.some((event) => event.status === 'unknown' && event.rawStatus !== null)).toBe(true);
    }
  });

  it('refuses a body that is not JSON or not the provider shape, with a reason', () => {
    const bodies: [TrackingProvider, string][] = [
      ['aftership', 'not json'],
      ['aftership', '{"msg":{}}'],
      ['aftership', '[]'],
      ['aftership', '{"msg":{"tracking_number":"1Z","checkpoints":[{"checkpoint_time":"yesterday"}]}}'],
      ['easypost', '{"id":"evt_1","description":"tracker.updated","result":{"tracking_details":[]}}'],
      ['easypost', 'null'],
      ['ship24', '{"trackings":{}}'],
      ['ship24', '{"trackings":[{"tracker":{"trackingNumber":""}}]}'],
      ['ship24', ''],
    ];
    for (const [provider, body] of bodies) {
      const parsed = parseInbound(provider, Buffer.from(body));
      expect(parsed, `${provider} ${body}`).toMatchObject({ ok: false, reason: expect.any(String) });
    }
  });

  it('answers no package for an EasyPost event that is not a tracker’s', () => {
    const body = Buffer.from('{"id":"evt_2","description":"batch.created","result":{"id":"batch_1"}}');
    expect(parseInbound('easypost', body)).toEqual({ ok: true, packages: [] });
  });
});

describe('deliveryProofOf: what a provider gives as proof of delivery, kept safe (D57)', () => {
  it('keeps a delivery photo only as an https address of bounded length', () => {
    const ok = 'https://pod.example.com/p/1.jpg?sig=abc';
    expect(deliveryProofOf(null, ok)).toEqual({ signedBy: null, photoUrl: ok });
    for (const bad of [
      'http://pod.example.com/p/1.jpg',
      'javascript:alert(1)',
      'data:image/png;base64,iVBORw0KGgo=',
      'https://user:pw@pod.example.com/p.jpg',
      'https://pod.example.com/a b.jpg',
      'https:/pod.example.com',
      'not a url',
      `https://pod.example.com/${'a'.repeat(PROOF_URL_AT_MOST)}`,
    ]) {
      expect(deliveryProofOf(null, bad), bad).toBeNull();
    }
    expect(
      deliveryProofOf(null, `https://pod.example.com/${'a'.repeat(PROOF_URL_AT_MOST - 30)}`)?.photoUrl,
    ).toBeTruthy();
  });

  it('keeps a signatory without control characters, cut to 200 characters, and nothing when both are empty', () => {
    expect(deliveryProofOf('  J\u0000 \n SMITH\u001b ', null)).toEqual({ signedBy: 'J SMITH', photoUrl: null });
    expect(deliveryProofOf('x'.repeat(500), null)?.signedBy).toHaveLength(200);
    expect(deliveryProofOf('   ', ' ')).toBeNull();
  });

  it('reads the photo among AfterShip proofs, and a Ship24 proof message as the proof of its package', () => {
    const aftership = parseInbound('aftership', fixture('aftership', 'delivered-proof.json'));
    // The signature is at an http address: the photo, at https, is the one kept.
    expect(aftership.ok && aftership.packages[0]?.deliveryProof?.photoUrl).toMatch(/^https:\/\/.*photo\.jpg$/);
    const unavailable = parseInbound('ship24', fixture('ship24', 'proof-of-delivery-unavailable.json'));
    expect(unavailable.ok && unavailable.packages[0]?.deliveryProof).toBeUndefined();
  });
});

const SECRET = 'whsec_5f2b8c1e9a7d4e3f';

/** The headers a provider sends for `body` under `secret`. */
function signed(provider: TrackingProvider, body: Buffer, secret = SECRET): Record<string, string> {
  if (provider === 'aftership') {
    return { [AFTERSHIP_SIGNATURE_HEADER]: createHmac('sha256', secret).update(body).digest('base64') };
  }
  if (provider === 'easypost') {
    const hex = createHmac('sha256', secret.normalize('NFKD')).update(body).digest('hex');
    return { [EASYPOST_SIGNATURE_HEADER]: `hmac-sha256-hex=${hex}` };
  }
  return { authorization: `Bearer ${secret}` };
}

describe('verifyInbound: over the raw bytes, in constant time (D54)', () => {
  for (const provider of TRACKING_PROVIDERS) {
    const body = fixture(provider, 'delivered.json');

    it(`${provider}: accepts the bytes as they arrived, 136.0 included`, () => {
      expect(body.toString('utf8')).toContain('136.0');
      expect(verifyInbound(provider, SECRET, body, signed(provider, body))).toBe(true);
    });

    it(`${provider}: refuses a wrong secret, a missing header and a header sent twice`, () => {
      expect(verifyInbound(provider, 'another-secret', body, signed(provider, body))).toBe(false);
      expect(verifyInbound(provider, SECRET, body, {})).toBe(false);
      expect(verifyInbound(provider, '', body, signed(provider, body, ''))).toBe(false);
      const [[name, value]] = Object.entries(signed(provider, body)) as [[string, string]];
      expect(verifyInbound(provider, SECRET, body, { [name]: [value, value] })).toBe(false);
    });

    it(`${provider}: reads the header whatever the case of its name`, () => {
      const upper = Object.fromEntries(Object.entries(signed(provider, body)).map(([k, v]) => [k.toUpperCase(), v]));
      expect(verifyInbound(provider, SECRET, body, upper)).toBe(true);
    });
  }

  for (const provider of ['aftership', 'easypost'] as const) {
    it(`${provider}: refuses one tampered byte and the re-serialised body`, () => {
      const body = fixture(provider, 'delivered.json');
      const headers = signed(provider, body);
      const tampered = Buffer.from(body);
      tampered[tampered.length - 3] = (tampered[tampered.length - 3]! + 1) % 256;
      expect(verifyInbound(provider, SECRET, tampered, headers)).toBe(false);
      // JSON.parse turns 136.0 into 136: the re-serialised body is not what was signed.
      const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2));
      expect(verifyInbound(provider, SECRET, reserialised, headers)).toBe(false);
    });
  }

  it('aftership: refuses a malformed signature (not base64, hex, truncated)', () => {
    const body = fixture('aftership', 'delivered.json');
    const good = signed('aftership', body)[AFTERSHIP_SIGNATURE_HEADER]!;
    const hex = Buffer.from(good, 'base64').toString('hex');
    for (const value of ['', 'not base64!', hex, good.slice(0, 20), `${good}AAAA`]) {
      expect(verifyInbound('aftership', SECRET, body, { [AFTERSHIP_SIGNATURE_HEADER]: value })).toBe(false);
    }
  });

  it('easypost: refuses a signature without its prefix, or with another one', () => {
    const body = fixture('easypost', 'delivered.json');
    const hex = signed('easypost', body)[EASYPOST_SIGNATURE_HEADER]!.replace('hmac-sha256-hex=', '');
    for (const value of [hex, `hmac-sha1-hex=${hex}`, `hmac-sha256-hex=${hex.slice(2)}`, 'hmac-sha256-hex=zz']) {
      expect(verifyInbound('easypost', SECRET, body, { [EASYPOST_SIGNATURE_HEADER]: value })).toBe(false);
    }
  });

  it('easypost: normalises the key with NFKD, so a composed and a decomposed secret sign alike', () => {
    const body = fixture('easypost', 'delivered.json');
    const composed = 'cl\u00e9-\ufb01ne'; // "é" composed and the "fi" ligature
    const decomposed = composed.normalize('NFKD');
    expect(decomposed).not.toBe(composed);
    const hex = createHmac('sha256', decomposed).update(body).digest('hex');
    const headers = { [EASYPOST_SIGNATURE_HEADER]: `hmac-sha256-hex=${hex}` };
    expect(verifyInbound('easypost', composed, body, headers)).toBe(true);
  });

  it('ship24: refuses a scheme other than Bearer, an empty or wrong token', () => {
    const body = fixture('ship24', 'delivered.json');
    for (const value of [
      SECRET,
      `Basic ${SECRET}`,
      `bearer${SECRET}`,
      'Bearer ',
      `Bearer ${SECRET}x`,
      `Bearer ${SECRET} x`,
    ]) {
      expect(verifyInbound('ship24', SECRET, body, { authorization: value })).toBe(false);
    }
  });

  it('never throws, whatever it is given', () => {
    const body = Buffer.from('{}');
    expect(verifyInbound('nobody' as TrackingProvider, SECRET, body, {})).toBe(false);
    expect(verifyInbound('aftership', SECRET, 'text' as unknown as Buffer, {})).toBe(false);
    expect(verifyInbound('easypost', SECRET, body, { [EASYPOST_SIGNATURE_HEADER]: undefined })).toBe(false);
  });
});
