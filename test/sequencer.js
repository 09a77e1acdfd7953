// The order in which Jest hands test files to its two workers. Jest runs the slowest files first when
// an earlier run recorded their durations, and otherwise the biggest files first. A fresh clone (as CI
// runs) has no durations, and file size is a poor guide here: a short end-to-end file that packs the
// libraries or starts a container engine takes minutes, a long unit spec seconds, and a slow file
// started last keeps one worker busy after the other has finished. So, without durations, end-to-end
// files go first; with them, Jest's own order stands.
const Sequencer = require('@jest/test-sequencer').default;

class EndToEndFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const failed = sorted.filter((test) => this.hasFailed(test));
    const rest = sorted.filter((test) => !this.hasFailed(test));
    const untimed = rest.filter((test) => test.duration == null);
    const isEndToEnd = (test) => test.path.endsWith('.e2e-spec.ts');
    return [...failed, ...untimed.filter(isEndToEnd), ...untimed.filter((test) => !isEndToEnd(test)), ...rest.filter((test) => test.duration != null)];
  }
}

module.exports = EndToEndFirst;
