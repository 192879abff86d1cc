import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  aftershipStatus,
  easypostStatus,
  parseInbound,
  ship24Status,
  TRACKING_PROVIDERS,
  verifyInbound,
} from '../../src/domain/tracking/providers';

describe("each provider's codes in our vocabulary (D54)", () => {
  it('AfterShip: the subtag decides returned, lost and damaged; an unknown tag is unknown', () => {
    expect(aftershipStatus('Exception', 'Exception_010')).toEqual({
      status: 'return_to_sender',
      subStatus: 'returning',
    });
    expect(aftershipStatus('Exception', 'Exception_011')).toEqual({
      status: 'return_to_sender',
      subStatus: 'returned',
    });
    expect(aftershipStatus('Exception', 'Exception_012')).toEqual({ status: 'exception', subStatus: 'damaged' });
    expect(aftershipStatus('Exception', 'Exception_013')).toEqual({ status: 'lost', subStatus: 'lost' });
    expect(aftershipStatus('Exception', 'Exception_999')).toEqual({ status: 'exception', subStatus: null });
    expect(aftershipStatus('AttemptFail', 'AttemptFail_001')).toEqual({
      status: 'exception',
      subStatus: 'attempted_delivery',
    });
    // A lost subtag under another tag is not taken at its word.
    expect(aftershipStatus('InTransit', 'Exception_013')).toEqual({ status: 'in_transit', subStatus: null });
    for (const tag of ['Pending', 'Expired', 'Teleported', '', null, undefined, 'toString', '__proto__']) {
      expect(aftershipStatus(tag, 'Exception_013')).toEqual({ status: 'unknown', subStatus: null });
    }
  });

  it('EasyPost: a failure whose detail is lost is lost; cancelled and error are unknown', () => {
    expect(easypostStatus('failure', 'lost')).toEqual({ status: 'lost', subStatus: 'lost' });
    expect(easypostStatus('failure', 'damaged')).toEqual({ status: 'exception', subStatus: 'damaged' });
    expect(easypostStatus('return_to_sender', 'return')).toEqual({
      status: 'return_to_sender',
      subStatus: 'returning',
    });
    expect(easypostStatus('in_transit', 'weather_delay')).toEqual({ status: 'in_transit', subStatus: 'delayed' });
    expect(easypostStatus('in_transit', 'lost')).toEqual({ status: 'in_transit', subStatus: 'lost' });
    expect(easypostStatus('in_transit', 'constructor')).toEqual({ status: 'in_transit', subStatus: null });
    for (const status of ['cancelled', 'error', 'unknown', 'held', null, 'hasOwnProperty']) {
      expect(easypostStatus(status, 'lost')).toEqual({ status: 'unknown', subStatus: null });
    }
  });

  it('Ship24: the exception code decides returned, lost and damaged, variants included', () => {
    expect(ship24Status('exception', 'exception_return')).toEqual({
      status: 'return_to_sender',
      subStatus: 'returning',
    });
    expect(ship24Status('exception', 'exception_returned')).toEqual({
      status: 'return_to_sender',
      subStatus: 'returned',
    });
    expect(ship24Status('exception', 'exception_lost_or_stolen')).toEqual({ status: 'lost', subStatus: 'lost' });
    expect(ship24Status('exception', 'exception_damaged')).toEqual({ status: 'exception', subStatus: 'damaged' });
    expect(ship24Status('exception', 'exception_new_kind')).toEqual({ status: 'exception', subStatus: null });
    expect(ship24Status('in_transit', 'exception_lost')).toEqual({ status: 'in_transit', subStatus: null });
    expect(ship24Status('failed_attempt', null)).toEqual({ status: 'exception', subStatus: 'attempted_delivery' });
    for (const milestone of ['pending', 'teleported', null, 'valueOf']) {
      expect(ship24Status(milestone, 'exception_lost')).toEqual({ status: 'unknown', subStatus: null });
    }
  });
});

describe('inbound deliveries never throw, whatever arrives (D54: a 4xx, never a 500)', () => {
  const json = fc.oneof(
    fc.json(),
    fc.constantFrom('{"msg":{"tracking_number":"1Z","checkpoints":[{}]}}', '{"trackings":[{"tracker":{}}]}'),
  );
  const anything = fc.oneof(
    json.map((text) => Buffer.from(text)),
    fc.uint8Array().map((bytes) => Buffer.from(bytes)),
  );
  const headers = fc.dictionary(
    fc.constantFrom('aftership-hmac-sha256', 'x-hmac-signature', 'authorization', 'Authorization', 'other'),
    fc.oneof(fc.string(), fc.array(fc.string()), fc.constant(undefined)),
  );

  it('parseInbound answers ok or a reason', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TRACKING_PROVIDERS), anything, (provider, body) => {
        const parsed = parseInbound(provider, body);
        expect(parsed.ok || typeof parsed.reason === 'string').toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('verifyInbound answers false for anything not signed with the secret', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TRACKING_PROVIDERS),
        anything,
        headers,
        fc.string({ minLength: 8 }),
        (provider, body, sent, secret) => {
          // Ship24's bearer token is the secret itself: a header that happens to hold it is no forgery.
          fc.pre(!JSON.stringify(sent).includes(secret));
          expect(verifyInbound(provider, secret, body, sent)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
