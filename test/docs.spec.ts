import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { generatedFiles, regenerate, ROOT } from '../scripts/docs-tables';

/** Every page of the book, the README and the libraries' package READMEs. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const libs = readdirSync(join(ROOT, 'libs'))
    .map((lib) => `libs/${lib}/README.md`)
    .filter((f) => existsSync(join(ROOT, f)));
  return ['README.md', 'bench/RESULTS.md', ...docs, ...libs];
}

describe('the docs', () => {
  it.each(generatedFiles())('%s lists what the code has (run `npm run docs` after a change)', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text).toEqual(regenerate(file, text));
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#');
        const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path);
        if (!existsSync(file)) {
          broken.push(`${page}: ${target}`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md')) {
          const anchors = [...readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map(([, heading]) =>
            heading
              .toLowerCase()
              .replace(/[^\w\- ]/g, '')
              .replace(/ /g, '-'),
          );
          if (!anchors.includes(anchor)) broken.push(`${page}: ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('keep the README to a newcomer’s first ten minutes', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(120);
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
  });
});
