import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCommentPaths } from './comment-paths.js';
import { checkMarkdownLinks, checkPathMentions, findMarkdownFiles } from './markdown-links.js';

/**
 * `npm run lint:links` (part of `npm run lint`): every relative link in the repository's
 * Markdown must stay inside the repository and name a file (and heading) that exists, so the
 * documentation works in any clone. Every repository path the Markdown names in prose or code
 * (`server/surfaces/http/pipeline/cors.ts`, tests/docs/) must exist too; the rule, which CHANGELOG.md
 * and the benchmark records in bench/results/ follow as well, is written at checkPathMentions
 * in scripts/markdown-links.ts. So must every repository path a code comment names
 * (scripts/comment-paths.ts). The README must also stay under 250 lines.
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

const mentions = [...checkPathMentions(root, files), ...checkCommentPaths(root)];
for (const { file, line, target, problem } of mentions) {
  process.stderr.write(`${file}:${line}: (${target}) ${problem}\n`);
}
if (mentions.length > 0) {
  process.stderr.write(
    `${mentions.length} path(s) named that do not exist: name today's path, say what the thing ` +
      `was, or name the commit that had it (git show <sha>:path)\n`,
  );
  process.exitCode = 1;
} else {
  process.stdout.write(`Repository paths: every path the Markdown and code comments name exists\n`);
}

/** The README is the guide read top to bottom; a subject that grows gets a page in docs/. */
const README_MAX_LINES = 250;
const readmeLines = readFileSync(join(root, 'README.md'), 'utf8').split('\n').length;
if (readmeLines > README_MAX_LINES) {
  process.stderr.write(
    `README.md has ${readmeLines} lines, over ${README_MAX_LINES}: move a subject to docs/\n`,
  );
  process.exitCode = 1;
}
