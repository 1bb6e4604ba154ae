import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import {
  extractPathMentions,
  pathExists,
  SKIPPED_DIRECTORIES,
  topLevelFolders,
  type LinkProblem,
} from './markdown-links.js';

/** Generated code, whose comments are not ours to keep: migrations, the client's REST types. */
const GENERATED_DIRECTORIES = new Set(['drizzle', 'generated', 'empty-database']);
const CODE_FILE = /\.(?:[cm]?ts|[cm]?js)$/;

/** Every source file under root, relative to it with `/` separators, in a stable order. */
export function findCodeFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const skipped = SKIPPED_DIRECTORIES.has(entry.name) || GENERATED_DIRECTORIES.has(entry.name);
      if (entry.isDirectory() && !skipped) walk(join(directory, entry.name));
      else if (entry.isFile() && CODE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        found.push(relative(root, join(directory, entry.name)).split(sep).join('/'));
      }
    }
  };
  walk(root);
  return found.sort();
}

interface Comment {
  /** 1-based line of the comment's first character. */
  line: number;
  text: string;
}

/**
 * The comments of a source file, as TypeScript's parser places them: the leading and trailing
 * trivia of every token, so a `//` inside a string, a template or a regular expression is not
 * taken for one.
 */
export function commentsOf(fileName: string, source: string): Comment[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false);
  const seen = new Map<number, Comment>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const { pos, end } of ranges ?? []) {
      if (seen.has(pos)) continue;
      const { line } = file.getLineAndCharacterOfPosition(pos);
      seen.set(pos, { line: line + 1, text: source.slice(pos, end) });
    }
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(source, node.pos));
    collect(ts.getTrailingCommentRanges(source, node.end));
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  return [...seen.values()].sort((a, b) => a.line - b.line);
}

/**
 * Repository paths named in code comments must exist, as in the Markdown (checkPathMentions):
 * a comment that sends the reader to a file we no longer have misleads as a stale doc does.
 * Any token that starts with a top-level folder and `/` counts, extension or not.
 */
export function checkCommentPaths(root: string, files = findCodeFiles(root)): LinkProblem[] {
  const folders = topLevelFolders(root);
  const problems: LinkProblem[] = [];
  for (const file of files) {
    for (const comment of commentsOf(file, readFileSync(join(root, file), 'utf8'))) {
      for (const { line, path } of extractPathMentions(comment.text, folders, true)) {
        if (pathExists(root, path)) continue;
        const at = comment.line + line - 1;
        problems.push({
          file,
          line: at,
          target: path,
          problem: 'names a path the repository does not have',
        });
      }
    }
  }
  return problems;
}
