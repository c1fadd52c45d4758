import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerCertificate } from 'node:tls';
import { FakeClock } from '../../util/clock/clock.ts';
import { AuthenticationError, Authenticator, type Credentials } from './authenticator.ts';
import { ServiceAccountTokens, type ObjectLookup } from './service-account-token.ts';
import type { UserInfo } from './user.ts';

const noPeer: Credentials = { authorization: undefined, peer: undefined };

async function outcome(a: Authenticator, c: Credentials): Promise<string> {
  try {
    const u: UserInfo = await a.authenticate(c);
    return `${u.name} uid=${u.uid} groups=${u.groups.join(',')}${Object.keys(u.extra).length > 0 ? ` extra=${JSON.stringify(u.extra)}` : ''}`;
  } catch (err) {
    if (err instanceof AuthenticationError) return `401 ${err.message}`;
    throw err;
  }
}

const cert = (cn: string, o: string | string[] | undefined): PeerCertificate => ({ raw: Buffer.from([1]), serialNumber: '0A', subject: { CN: cn, ...(o === undefined ? {} : { O: o }) } }) as unknown as PeerCertificate;

test('static tokens, client certificates and anonymous requests authenticate as kube-apiserver does', async () => {
  const a = new Authenticator({
    users: [{ name: 'alice', token: 'a-token', groups: ['dev'] }, { name: 'root', token: 'r-token', uid: 'r1', groups: ['system:masters'] }],
    serviceAccountTokens: undefined,
    lookup: () => undefined,
    anonymous: true,
  });
  const cases: Array<[Credentials, string]> = [
    [noPeer, 'system:anonymous uid= groups=system:unauthenticated'],
    [{ authorization: 'Bearer a-token', peer: undefined }, 'alice uid= groups=dev,system:authenticated'],
    [{ authorization: 'bearer r-token', peer: undefined }, 'root uid=r1 groups=system:masters,system:authenticated'],
    [{ authorization: 'Bearer nope', peer: undefined }, '401 invalid bearer token'],
    [{ authorization: 'Basic YTpi', peer: undefined }, '401 invalid bearer token'],
    [{ authorization: 'Bearer ', peer: undefined }, '401 invalid bearer token'],
    [{ authorization: undefined, peer: { certificate: cert('carol', ['ops', 'dev']), authorized: true } }, 'carol uid= groups=ops,dev,system:authenticated'],
    [{ authorization: undefined, peer: { certificate: cert('dave', 'ops'), authorized: true } }, 'dave uid= groups=ops,system:authenticated'],
    // A verified certificate wins over a token; an empty CommonName is no identity, so the token decides.
    [{ authorization: 'Bearer a-token', peer: { certificate: cert('dave', undefined), authorized: true } }, 'dave uid= groups=system:authenticated'],
    [{ authorization: 'Bearer a-token', peer: { certificate: cert('', undefined), authorized: true } }, 'alice uid= groups=dev,system:authenticated'],
    [{ authorization: undefined, peer: { certificate: cert('eve', undefined), authorized: false, authorizationError: 'SELF_SIGNED_CERT_IN_CHAIN' } }, '401 verifying certificate SN=10 failed: x509: certificate signed by unknown authority (SELF_SIGNED_CERT_IN_CHAIN)'],
    // A certificate that does not verify fails the request even when a good token follows (upstream's union collects the error but the token still authenticates).
    [{ authorization: undefined, peer: { certificate: undefined, authorized: false } }, 'system:anonymous uid= groups=system:unauthenticated'],
  ];
  for (const [c, expected] of cases) assert.equal(await outcome(a, c), expected, JSON.stringify(c));
  const closed = new Authenticator({ users: [], serviceAccountTokens: undefined, lookup: () => undefined, anonymous: false });
  assert.equal(await outcome(closed, noPeer), '401 no credentials');
});

test('ServiceAccount tokens verify signature, times, audiences and the ServiceAccount and bound pod that still exist', async () => {
  const clock = new FakeClock();
  const tokens = new ServiceAccountTokens({ clock });
  const objects = new Map<string, { uid: string; deletionTimestamp?: string }>([
    ['serviceaccounts/ns/bot', { uid: 'sa-uid' }],
    ['pods/ns/p', { uid: 'pod-uid' }],
  ]);
  const lookup: ObjectLookup = (r, ns, name) => objects.get(`${r}/${ns}/${name}`);
  const a = new Authenticator({ users: [], serviceAccountTokens: tokens, lookup, anonymous: true });
  const bearer = (token: string): Credentials => ({ authorization: `Bearer ${token}`, peer: undefined });
  const plain = await tokens.generate({ namespace: 'ns', serviceAccount: { name: 'bot', uid: 'sa-uid' }, audiences: [tokens.issuer], expirationSeconds: 3600 });
  assert.equal(plain.expiresAtMs, clock.now() + 3_600_000);
  assert.equal(await outcome(a, bearer(plain.token)), 'system:serviceaccount:ns:bot uid=sa-uid groups=system:serviceaccounts,system:serviceaccounts:ns,system:authenticated');
  const claims = JSON.parse(Buffer.from(plain.token.split('.')[1]!, 'base64url').toString());
  assert.deepEqual(claims, {
    'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'bot', uid: 'sa-uid' } },
    iss: 'https://kubernetes.default.svc',
    sub: 'system:serviceaccount:ns:bot',
    aud: ['https://kubernetes.default.svc'],
    iat: clock.now() / 1000,
    nbf: clock.now() / 1000,
    exp: clock.now() / 1000 + 3600,
  });
  const bound = await tokens.generate({ namespace: 'ns', serviceAccount: { name: 'bot', uid: 'sa-uid' }, pod: { name: 'p', uid: 'pod-uid' }, audiences: ['other', tokens.issuer], expirationSeconds: 600 });
  assert.equal(
    await outcome(a, bearer(bound.token)),
    'system:serviceaccount:ns:bot uid=sa-uid groups=system:serviceaccounts,system:serviceaccounts:ns,system:authenticated extra={"authentication.kubernetes.io/pod-name":["p"],"authentication.kubernetes.io/pod-uid":["pod-uid"]}',
  );
  const foreign = await tokens.generate({ namespace: 'ns', serviceAccount: { name: 'bot', uid: 'sa-uid' }, audiences: ['vault'], expirationSeconds: 600 });
  assert.equal(await outcome(a, bearer(foreign.token)), '401 invalid bearer token, token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc"]');
  const tampered = plain.token.slice(0, -4) + (plain.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  assert.equal(await outcome(a, bearer(tampered)), '401 invalid bearer token, invalid signature');
  const otherIssuer = new ServiceAccountTokens({ clock, issuer: 'https://elsewhere' });
  const stranger = await otherIssuer.generate({ namespace: 'ns', serviceAccount: { name: 'bot', uid: 'sa-uid' }, audiences: [tokens.issuer], expirationSeconds: 600 });
  assert.equal(await outcome(a, bearer(stranger.token)), '401 invalid bearer token');
  objects.set('pods/ns/p', { uid: 'new-pod' });
  assert.equal(await outcome(a, bearer(bound.token)), '401 invalid bearer token, pod UID (new-pod) does not match service account pod ref claim (pod-uid)');
  objects.set('serviceaccounts/ns/bot', { uid: 'recreated' });
  assert.equal(await outcome(a, bearer(plain.token)), '401 invalid bearer token, service account UID (recreated) does not match claim (sa-uid)');
  objects.delete('serviceaccounts/ns/bot');
  assert.equal(await outcome(a, bearer(plain.token)), '401 invalid bearer token, serviceaccounts "bot" not found');
  objects.set('serviceaccounts/ns/bot', { uid: 'sa-uid' });
  await clock.step(3600_000 + 61_000);
  assert.equal(await outcome(a, bearer(plain.token)), '401 invalid bearer token, service account token has expired');
});
