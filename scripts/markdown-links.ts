import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Folders that hold no documentation of ours: installed, built, generated or local data. */
export const SKIPPED_DIRECTORIES = new Set([
  'node_modules',
  'dist',
  '.data',
  '.git',
  'coverage',
  '.scratch',
]);

export interface LinkProblem {
  /** The Markdown file, relative to the repository root, with `/` separators. */
  file: string;
  line: number;
  target: string;
  problem: string;
}

/** Every `.md` file under root, relative to it, in a stable order. */
export function findMarkdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(join(directory, entry.name));
      } else if (entry.isFile() && entry.name.endsWith('.md')) {
        found.push(toPosix(relative(root, join(directory, entry.name))));
      }
    }
  };
  walk(root);
  return found.sort();
}

interface Link {
  line: number;
  target: string;
}

/**
 * The link targets of a Markdown text: inline links and images `[text](target "title")`,
 * autolinks `<https://…>` and reference definitions `[id]: target`. Fenced code blocks and
 * inline code spans are not links, so they are blanked out first.
 */
export function extractLinks(markdown: string): Link[] {
  const links: Link[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const text = raw.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length));
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(text);
    if (definition?.[1]) links.push({ line, target: definition[1] });
    for (const match of text.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)/g)) {
      const target = (match[1] ?? '').replace(/^<|>$/g, '');
      links.push({ line, target });
    }
    for (const match of text.matchAll(/<([a-z][a-z0-9+.-]*:[^\s>]+)>/gi)) {
      links.push({ line, target: match[1] ?? '' });
    }
  });
  return links;
}

/**
 * GitHub's anchors for a Markdown text's headings: lower case, punctuation other than `-`
 * and `_` dropped, spaces as `-`, and `-1`, `-2`, … after repeated headings.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const raw of markdown.split('\n')) {
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading?.[1]) continue;
    const base = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * Every link in root's Markdown files that leaves the repository, names a file that does not
 * exist, or names a heading that the target file does not have. Links with a scheme
 * (`https:`, `mailto:`) are left alone: checking them needs the network.
 */
export function checkMarkdownLinks(root: string, files = findMarkdownFiles(root)): LinkProblem[] {
  const problems: LinkProblem[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsOf.get(path);
    if (!found) {
      found = headingAnchors(readFileSync(path, 'utf8'));
      anchorsOf.set(path, found);
    }
    return found;
  };

  for (const file of files) {
    const path = resolve(root, file);
    for (const { line, target } of extractLinks(readFileSync(path, 'utf8'))) {
      const report = (problem: string) => problems.push({ file, line, target, problem });
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      if (target.startsWith('//')) {
        report('a scheme-relative URL; write https://');
        continue;
      }
      const hashAt = target.indexOf('#');
      const pathPart = (hashAt === -1 ? target : target.slice(0, hashAt)).replace(/\?.*$/, '');
      const fragment = hashAt === -1 ? '' : target.slice(hashAt + 1);
      if (pathPart.startsWith('/')) {
        report('an absolute path; write a path relative to this file');
        continue;
      }
      let decoded: string;
      try {
        decoded = decodeURIComponent(pathPart);
      } catch {
        report('a malformed percent-encoding');
        continue;
      }
      const destination = decoded === '' ? path : resolve(dirname(path), decoded);
      const inside = relative(root, destination);
      if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
        report('points outside the repository, which a clone does not have');
        continue;
      }
      if (!existsSync(destination)) {
        report('no such file in the repository');
        continue;
      }
      if (fragment && destination.endsWith('.md') && statSync(destination).isFile()) {
        if (!anchors(destination).has(decodeURIComponent(fragment).toLowerCase())) {
          report(`no heading with the anchor #${fragment} in ${toPosix(inside)}`);
        }
      }
    }
  }
  return problems;
}

/**
 * Repository paths named in prose. A Markdown file that names a file we no longer have sends the
 * reader looking for it, so a named path must exist. The rule:
 *
 * - A mention is a token that starts with one of the repository's top-level folders (the
 *   folders at the root, other than hidden ones and those in SKIPPED_DIRECTORIES, so `dist/`
 *   and `node_modules/` are not read), then `/`, then path characters (letters, digits and
 *   `. _ - + @ /`, with `*` and `<placeholder>` allowed). It is read in prose, in code spans
 *   and in fenced blocks alike, in every Markdown file, CHANGELOG.md and bench/results/
 *   included: a changelog entry or a benchmark record that names a file since moved or removed
 *   is as misleading as a guide that does.
 * - It counts when it looks like a path: a whole code span (`server/surfaces/http/`, `db/runner.ts`), a
 *   name with an extension (server/main.ts) or a folder written with its trailing `/` (docs/).
 *   Two words joined by a slash in prose are not a path.
 * - Paths are named from the repository root. A token right after a word character, `/`,
 *   `.`, `:`, `@` or `-` is not read: URLs, relative paths (`../db/x.ts`), package names and
 *   commit-qualified paths are left alone. So history names a file that is gone with its
 *   commit, `git show 794af53^:server/procedure-call.ts`, which git can still answer.
 * - Link targets are not read here: checkMarkdownLinks resolves them relative to their file.
 * - `*` and `<placeholder>` stand for any name within one segment: `bench/embedded-*.ts` and
 *   `db/queries/<table>.ts` pass when at least one file matches.
 * - Trailing sentence punctuation (`.`, `,`, `;`) is not part of the path.
 */
export function checkPathMentions(root: string, files = findMarkdownFiles(root)): LinkProblem[] {
  const folders = topLevelFolders(root);
  if (folders.length === 0) return [];
  const problems: LinkProblem[] = [];
  for (const file of files) {
    for (const { line, path } of extractPathMentions(
      readFileSync(resolve(root, file), 'utf8'),
      folders,
    )) {
      if (!pathExists(root, path)) {
        problems.push({
          file,
          line,
          target: path,
          problem: 'names a path the repository does not have',
        });
      }
    }
  }
  return problems;
}

/** The folders a repository path may start with: the root's, less hidden and skipped ones. */
export function topLevelFolders(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .filter((name) => !SKIPPED_DIRECTORIES.has(name));
}

interface PathMention {
  line: number;
  path: string;
}

const PATH_CHARACTERS = String.raw`[\w.+@*<>/-]`;

/**
 * The repository paths (see checkPathMentions) that a Markdown text names, by line. With
 * `every`, a token counts even without an extension or a trailing `/`, a folder named bare:
 * code comments name paths, not words joined by a slash.
 */
export function extractPathMentions(
  markdown: string,
  folders: readonly string[],
  every = false,
): PathMention[] {
  const mentions: PathMention[] = [];
  const alternatives = folders.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const token = new RegExp(
    String.raw`(?<![\w/.:@-])(\x60?)((?:${alternatives.join('|')})/${PATH_CHARACTERS}*)`,
    'g',
  );
  markdown.split('\n').forEach((raw, index) => {
    const text = raw
      .replace(/\]\(\s*(<[^>]*>|[^)\s]+)/g, (target) => ' '.repeat(target.length))
      .replace(/^( {0,3}\[[^\]]+\]:\s*)(\S+)/, (_, label: string, target: string) => {
        return label + ' '.repeat(target.length);
      });
    for (const match of text.matchAll(token)) {
      const backtick = match[1] ?? '';
      const end = match.index + match[0].length;
      const wholeSpan = backtick === '`' && text[end] === '`';
      const path = (match[2] ?? '').replace(/[.,;]+$/, '');
      const last = path.slice(path.lastIndexOf('/') + 1);
      if (every || wholeSpan || path.endsWith('/') || /\.[A-Za-z0-9]+$/.test(last)) {
        mentions.push({ line: index + 1, path });
      }
    }
  });
  return mentions;
}

/** Whether root has path; `*` and `<placeholder>` match any name within their segment. */
export function pathExists(root: string, path: string): boolean {
  let candidates = [root];
  for (const segment of path.split('/').filter((part) => part !== '')) {
    if (!/[*<]/.test(segment)) {
      candidates = candidates.map((at) => join(at, segment)).filter((at) => existsSync(at));
    } else {
      const pattern = new RegExp(
        `^${segment
          .split(/(\*|<[^>]*>)/)
          .map((part) =>
            part === '*'
              ? '.*'
              : part.startsWith('<')
                ? '.+'
                : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
          )
          .join('')}$`,
      );
      candidates = candidates.flatMap((at) =>
        existsSync(at) && statSync(at).isDirectory()
          ? readdirSync(at)
              .filter((name) => pattern.test(name))
              .map((name) => join(at, name))
          : [],
      );
    }
    if (candidates.length === 0) return false;
  }
  return true;
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}
