import { checkMarkdownLinks, findMarkdownFiles } from './markdown-links.js';

/**
 * `npm run lint:links` (part of `npm run lint`): every relative link in the repository's
 * Markdown must stay inside the repository and name a file (and heading) that exists, so the
 * documentation works in any clone.
 */
const root = process.cwd();
const files = findMarkdownFiles(root);
const problems = checkMarkdownLinks(root, files);
for (const { file, line, target, problem } of problems) {
  process.stderr.write(`${file}:${line}: (${target}) ${problem}\n`);
}
if (problems.length > 0) {
  process.stderr.write(`${problems.length} broken Markdown link(s)\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`Markdown links: ${files.length} files, every relative link resolves\n`);
}
