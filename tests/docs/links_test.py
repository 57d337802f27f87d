#!/usr/bin/env python3
"""Every relative link of the documentation resolves, and nothing cites a path outside the repository.

usage: links_test.py SOURCE_DIR

Checks README.md, CHANGELOG.md, CONTRIBUTING.md and docs/**/*.md: each relative link or image ([text](path),
[text](path#anchor), ![alt](path)) must name a file or folder inside the repository, and an anchor must be a
heading of the page it names (GitHub's rule: the heading's text lowercased, punctuation dropped, spaces as
hyphens). Then every tracked text file is searched for citations of the shared folder outside the repository
(`../shared/`, `shared/papers`, `shared/design`), which a reader of a clone cannot follow. Exit 1 on any finding.
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
FENCE = re.compile(r'^\s*(```|~~~)')
OUTSIDE = re.compile(r'\.\./shared/|shared/papers|shared/design')
# Files that still cite the shared folder and are being rewritten elsewhere (issue 32: each solver's header is
# its owner's to change). Each is reported as skipped; once it no longer cites the folder the test fails until
# it is taken off this list, so the list only shrinks.
AWAITING_FIX = set()


def slug(heading):
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # a link in a heading keeps its text
    text = text.strip().lower().replace('`', '').replace('*', '')
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path):
    seen, result = {}, set()
    in_fence = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            m = re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                result.add(s if n == 0 else f'{s}-{n}')
    return result


def links(path):
    in_fence = False
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            line = re.sub(r'`[^`]*`', '', line)  # code spans are not links
            for m in LINK.finditer(line):
                yield number, m.group(1)


def main():
    root = os.path.realpath(sys.argv[1])
    pages = [os.path.join(root, name) for name in ('README.md', 'CHANGELOG.md', 'CONTRIBUTING.md')]
    for folder, _, files in os.walk(os.path.join(root, 'docs')):
        pages += [os.path.join(folder, name) for name in sorted(files) if name.endswith('.md')]
    problems = []
    checked = 0
    for page in pages:
        if not os.path.exists(page):
            problems.append(f'{os.path.relpath(page, root)}: missing')
            continue
        for number, target in links(page):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # http:, https:, mailto:
                continue
            checked += 1
            where = f'{os.path.relpath(page, root)}:{number}: {target}'
            path, _, anchor = target.partition('#')
            resolved = os.path.realpath(os.path.join(os.path.dirname(page), path)) if path else page
            if resolved != root and not resolved.startswith(root + os.sep):
                problems.append(f'{where}: points outside the repository')
                continue
            if not os.path.exists(resolved):
                problems.append(f'{where}: no such file')
                continue
            if anchor:
                if not resolved.endswith('.md') or os.path.isdir(resolved):
                    problems.append(f'{where}: an anchor on a file that is not Markdown')
                elif anchor not in anchors(resolved):
                    problems.append(f'{where}: no heading #{anchor} in {os.path.relpath(resolved, root)}')
    # Citations of files outside the repository, in any tracked text file (this file names the patterns).
    try:
        tracked = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True, check=True).stdout
        files = [name for name in tracked.decode().split('\0') if name]
    except (OSError, subprocess.CalledProcessError):
        files = []
    me = os.path.relpath(os.path.realpath(__file__), root)
    for name in files:
        if name == me:
            continue
        found = []
        try:
            with open(os.path.join(root, name), encoding='utf-8') as f:
                found = [(number, line) for number, line in enumerate(f, 1) if OUTSIDE.search(line)]
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        if name in AWAITING_FIX:
            if found:
                print(f'skip {name}: cites the shared folder (awaiting its owner, {len(found)} lines)')
            else:
                problems.append(f'{name}: no longer cites a path outside the repository: take it off AWAITING_FIX')
            continue
        for number, line in found:
            problems.append(f'{name}:{number}: cites a path outside the repository: {line.strip()[:100]}')
    for p in problems:
        print('FAIL', p)
    print(f'{checked} relative links in {len(pages)} pages, {len(files)} tracked files searched: '
          f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
