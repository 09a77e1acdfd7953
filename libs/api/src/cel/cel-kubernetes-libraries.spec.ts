import { celToJson, compileCel } from './cel-environment';

function run(source: string, self: unknown = null): unknown {
  const outcome = compileCel(source, ['self']).evaluate({ self });
  if (!outcome.ok) throw new Error(outcome.error);
  return celToJson(outcome.value);
}

function failure(source: string): string {
  const outcome = compileCel(source, ['self']).evaluate({ self: null });
  if (outcome.ok) throw new Error(`${source} evaluated to ${String(outcome.value)}`);
  return outcome.error;
}

describe("Kubernetes' CEL libraries", () => {
  it.each<[string, unknown]>([
    ['isURL("https://example.com:8443/a/b?x=1&x=2&y=3")', true],
    ['isURL("/absolute/path")', true],
    ['isURL("relative/path")', false],
    ['isURL("not a url")', false],
    ['url("https://example.com:8443/a%20b?x=1").getScheme()', 'https'],
    ['url("https://example.com:8443/a").getHost()', 'example.com:8443'],
    ['url("https://[::1]:80/").getHostname()', '::1'],
    ['url("https://example.com:8443/").getPort()', '8443'],
    ['url("https://example.com/a%20b").getEscapedPath()', '/a%20b'],
    ['url("/a/b").getHost()', ''],
    ['url("https://example.com/?x=1&x=2&y=3").getQuery()', { x: ['1', '2'], y: ['3'] }],
  ])('url: %s is %j', (source, expected) => expect(run(source)).toEqual(expected));

  it.each<[string, unknown]>([
    ['isIP("10.0.0.1")', true],
    ['isIP("010.0.0.1")', false],
    ['isIP("fe80::1%eth0")', false],
    ['isIP("::ffff:1.2.3.4")', false],
    ['ip("2001:db8:0:0:0:0:0:1") == ip("2001:db8::1")', true],
    ['string(ip("2001:0db8:0000:0000:1:0:0:1"))', '2001:db8::1:0:0:1'],
    ['ip("10.0.0.1").family()', 4],
    ['ip("::1").family()', 6],
    ['ip("127.0.0.2").isLoopback()', true],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("169.254.1.1").isLinkLocalUnicast()', true],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("224.0.0.5").isLinkLocalMulticast()', true],
    ['ip("8.8.8.8").isGlobalUnicast()', true],
    ['ip("127.0.0.1").isGlobalUnicast()', false],
    ['isCIDR("10.0.0.0/8")', true],
    ['isCIDR("10.0.0.0/33")', false],
    ['isCIDR("10.0.0.0")', false],
    ['cidr("10.0.0.0/8").containsIP(ip("10.1.2.3"))', true],
    ['cidr("10.0.0.0/8").containsIP("11.0.0.1")', false],
    ['cidr("2001:db8::/32").containsIP("2001:db8:1::1")', true],
    ['cidr("10.0.0.0/8").containsIP("::1")', false],
    ['cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', true],
    ['cidr("10.1.0.0/16").containsCIDR("10.0.0.0/8")', false],
    ['cidr("10.1.2.3/8").prefixLength()', 8],
    ['cidr("10.1.2.3/8").ip()', '10.1.2.3'],
    ['cidr("10.1.2.3/8").masked()', '10.0.0.0/8'],
    ['cidr("2001:db8::1/32").masked()', '2001:db8::/32'],
  ])('ip and cidr: %s is %j', (source, expected) => expect(run(source)).toEqual(expected));

  it.each<[string, unknown]>([
    ['isQuantity("1.5Gi")', true],
    ['isQuantity("500m")', true],
    ['isQuantity("1e3")', true],
    ['isQuantity("1.5GB")', false],
    ['quantity("1Gi").compareTo(quantity("1024Mi"))', 0],
    ['quantity("1Gi").isGreaterThan(quantity("1G"))', true],
    ['quantity("500m").isLessThan(quantity("1"))', true],
    ['quantity("1.5k").asInteger()', 1500],
    ['quantity("1Ki").asInteger()', 1024],
    ['quantity("500m").isInteger()', false],
    ['quantity("2e3").asInteger()', 2000],
    // sign is a global function in Kubernetes 1.32: quantity("1").sign() does not type-check.
    ['sign(quantity("-1"))', -1],
    ['sign(quantity("0"))', 0],
    ['quantity("250m").asApproximateFloat()', 0.25],
  ])('quantity: %s is %j', (source, expected) => expect(run(source)).toEqual(expected));

  it('refuses values that are not of the library, at evaluation', () => {
    expect(failure('url("not a url")')).toMatch(/URL parse error/);
    expect(failure('ip("1.2.3")')).toMatch(/IP Address "1.2.3" parse error/);
    expect(failure('cidr("10.0.0.0/99")')).toMatch(/network address parse error/);
    expect(failure('quantity("12 apples")')).toMatch(/quantities must match/);
    expect(failure('quantity("500m").asInteger()')).toMatch(/cannot convert value to integer/);
    expect(failure('quantity("10E").asInteger()')).toBe('cannot convert value to integer');
  });

  it('formats strings (the strings extension, which Kubernetes also enables)', () => {
    expect(run('"%s has %d replicas".format([self.name, self.n])', { name: 'web', n: 3n })).toBe('web has 3 replicas');
  });

  it('reads values from the object, as rules do', () => {
    expect(
      run('cidr(self.podCIDR).containsIP(self.podIP) && quantity(self.memory).isLessThan(quantity("2Gi"))', {
        podCIDR: '10.244.0.0/16',
        podIP: '10.244.3.7',
        memory: '1536Mi',
      }),
    ).toBe(true);
  });
});

// Kubernetes' quantity values (library/quantity.go and apiextensions-apiserver's validation_test.go
// "quantity"): compared and added by amount, whatever their spelling.
describe('quantity values', () => {
  it.each([
    'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
    'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
    'quantity("50k").add(quantity("20")) == quantity("50.02k")',
    'quantity("50k").sub(quantity("20")) == quantity("49.98k")',
    'quantity("50k").sub(20) == quantity("49980")',
    'quantity("50k").add(20).sub(quantity("100k")).asInteger() < 0',
    'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0',
    'quantity("1Gi") == quantity("1024Mi")',
    'quantity("1Gi") != quantity("1G")',
    'type(quantity("1")) == type(quantity("2"))',
  ])('%s', (source) => expect(compileCel(source, []).evaluate({})).toEqual({ ok: true, value: true }));

  it.each([
    ['quantity("12Mi")', 1],
    ['quantity("200M") == quantity("200M")', 3],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', 5],
    ['quantity("50k").sub(20) == quantity("49980")', 4],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', 7],
  ])('%s costs %s when run, as cost_test.go says', (source, cost) => {
    expect(compileCel(source, []).evaluateWithCost({}, 1_000_000).cost).toBe(cost);
  });
});
