#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every function, file and lock a document names exists (part of
# `make lint`). The documents are Documentation/*.rst, README and the DOC:
# blocks of the module's sources (*.c, *.h of the module directories, each
# block from its "DOC:" line to the end of its comment); the other comments
# of the sources are not read. The names a document uses as code:
#
#   function  NAME( with a project prefix ($prefixes), as ``NAME()``,
#             NAME() or NAME(args); names of the kernel (other prefixes)
#             are not checked
#   name      any other word with a project prefix, in backticks or not
#             (``swi_stream``, a function in a table without its "()",
#             ``SWI_MAX_CQE``); not one followed by * (SWI_MAX_*) or by a
#             file's extension (mpa_crc_kunit.c)
#   file      a path of the repository: mpa/, ddp/, rdmap/, engine/, dev/,
#             cm/, kunit/, tools/ or Documentation/ followed by a file or
#             directory name (rdmap/qp.c, tools/e2e/, cm/), not preceded
#             by a path character (so /dev/... and $KSRC/tools/... are
#             not ours); a glob (tools/e2e/*.sh, rdmap/stream.[ch]) must
#             match a file; NN-name and NN-* stand for the numbered scripts
#   lock      ``NAME``, ``p->NAME``, ``type.NAME`` or ``@NAME`` in double
#             backticks, &type.NAME and @NAME (kernel-doc), and a project
#             prefixed identifier, where NAME ends in lock or mutex; NAME
#             (the member after the last -> or .) is checked (a project
#             prefixed type before it is a name)
#
# A function or lock exists when it is an identifier of the code of the
# module's sources (comments and string literals removed: a name only a
# comment or a message mentions is gone); a name when it is one, or a word
# of a string literal of the sources (counters, trace fields), of Kbuild or
# the Makefile (make variables), or a file's name without its extension
# (mpa_frame); a file when it is, or is a directory of, a file git knows
# (tracked, or untracked and not ignored), or any file outside build/ and
# .git when DIR is no git tree.
#
# Prints FILE:LINE: NAME (kind) does not exist for each one missing, and
# fails when there is one.
#
# Usage: tools/check-doc-names.sh [DIR]   (default: the repository)
#        tools/check-doc-names.sh --self-test
set -uo pipefail

# The project's prefixes of functions, types and macros (the lower case
# ones are also those of its locks' and structs' names).
prefixes="swi_ eng_ rdmap_ ddp_ mpa_ swe_ SWI_ ENG_ RDMAP_ DDP_ MPA_ SWE_"
# The directories of the module's sources (those that exist are read), and
# the first components of the project's paths.
srcdirs="mpa ddp rdmap engine dev cm kunit"
pathdirs="$srcdirs tools Documentation"

# Locks of the kernel, not of the project: a document may name them
# whether the sources use them or not (the first two they use today):
#   sk_callback_lock  the socket callbacks' lock (struct sock)
#   rcu_read_lock     the RCU read side, a lock in the locking tables
#   rtnl_lock         netdev events and link changes run under it
#   mmap_lock         the mm's lock, held by the mmap() of a queue's ring
kernel_locks="sk_callback_lock rcu_read_lock rtnl_lock mmap_lock"
# Names with a project prefix that are not the module's: siw's (the
# kernel's) mpa_crc_required; MPA_PEER_CONNS, an environment variable of
# tools/mpa-peer.
other_names="mpa_crc_required MPA_PEER_CONNS"
# Paths that name the kernel's tree, not ours (the test kernel's kunit.py,
# the files the upstream series adds to a tree).
kernel_paths="tools/testing/ Documentation/infiniband/ drivers/infiniband/"

# alternation of $prefixes for the regular expressions
pre_re() {
	local p out=
	for p in $prefixes; do
		out=${out:+$out|}$p
	done
	echo "$out"
}

# doc_blocks DIR FILE...: each FILE as DIR/FILE with the lines outside its
# DOC: blocks emptied
doc_blocks() {
	local dir=$1
	shift
	awk -v dir="$dir" 'FNR == 1 {
		if (out)
			close(out)
		out = dir "/" FILENAME; d = 0
	     }
	     /DOC:/ { d = 1 }
	     { print (d ? $0 : "") > out }
	     d && /\*\// { d = 0 }' "$@"
}

# strip_code [strings]: stdin without C comments and without string or
# character literals (with their text but not their quotes: strings)
strip_code() {
	awk -v keep="${1:-}" '{
		line = $0; out = ""
		while (line != "") {
			if (incom) {
				j = index(line, "*/")
				if (j == 0) { line = ""; break }
				line = substr(line, j + 2); incom = 0; out = out " "
				continue
			}
			if (!match(line, /\/\*|\/\/|["\047]/)) {
				out = out line; break
			}
			out = out substr(line, 1, RSTART - 1)
			tok = substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
			if (tok == "/*") { incom = 1; continue }
			if (tok == "//") { line = ""; break }
			# a literal: up to its unescaped closing quote
			lit = ""
			while (line != "") {
				c = substr(line, 1, 1)
				if (c == "\\") { line = substr(line, 3); continue }
				line = substr(line, 2)
				if (c == tok) break
				lit = lit c
			}
			out = out " " (keep ? lit " " : "")
		}
		print out
	}'
}

# refs DOC...: the names the files use as code, one per line as
# FILE:LINE<TAB>KIND<TAB>NAME (paths relative to the current directory)
refs() {
	local pre pd p
	pre=$(pre_re)
	pd=
	for p in $pathdirs; do
		pd=${pd:+$pd|}$p
	done
	# functions
	grep -HnoP "(?<![\w/])(?:$pre)\w*(?=\()" "$@" |
		sed -E 's/^([^:]*:[0-9]+):/\1\tfunction\t/'
	# other names (not those of locks, below)
	grep -HnoP "(?<![\w/-])(?:$pre)\w+(?![\w(*])(?!\.(?:[ch]|sh|py|rst|k?o)\b)" \
		"$@" |
		grep -vE '(lock|mutex)$' |
		sed -E 's/^([^:]*:[0-9]+):/\1\tname\t/'
	# files
	grep -HnoP "(?<![\w./\$~@:-])(?:$pd)/[\w.*/\[\]-]*" "$@" |
		sed -E -e 's/^([^:]*:[0-9]+):/\1\tfile\t/' -e 's/\.+$//'
	# locks: in double backticks, kernel-doc's &type.member and @member,
	# project prefixed identifiers
	{
		grep -HnoP '``\K[@&]?(?:\w+(?:->|\.))*\w*(?:lock|mutex)(?=``)' "$@"
		grep -HnoP '(?<![\w`])[@&](?:\w+(?:->|\.))*\w*(?:lock|mutex)\b(?![(\w])' "$@"
		grep -HnoP "(?<![\w.>@&\`])(?:$pre)\w*(?:lock|mutex)\b(?![(\w])" "$@"
	} | sed -E 's/^([^:]*:[0-9]+):[@&]?/\1\tlock\t/'
}

# check DIR: print each name of a document that does not exist; 1 when
# there is one
check() {
	local dir=$1 t d f bad
	local -a src=() docs=() top=() dirs=()

	cd "$dir" || return 2
	t=$(mktemp -d) || return 2

	# the module's sources: their identifiers, their words, their DOC:
	# blocks
	mapfile -t src < <({ find . -maxdepth 1 -name '*.[ch]'
			     for d in $srcdirs; do
				[ -d "$d" ] && find "$d" -name '*.[ch]'
			     done; } | sed 's|^\./||' | sort)
	: > "$t/ident"
	: > "$t/word"
	if [ ${#src[@]} -gt 0 ]; then
		cat "${src[@]}" | strip_code | grep -ohE '[A-Za-z_][A-Za-z0-9_]*' |
			sort -u > "$t/ident"
		cat "${src[@]}" | strip_code strings |
			grep -ohE '[A-Za-z_][A-Za-z0-9_]*' | sort -u > "$t/word"
	fi
	for f in Kbuild Makefile; do
		[ -f "$f" ] && sed 's/#.*//' "$f"
	done | grep -ohE '[A-Za-z_][A-Za-z0-9_]*' >> "$t/word"
	printf '%s\n' $other_names >> "$t/word"
	printf '%s\n' $kernel_locks > "$t/klock"
	mapfile -t docs < <(grep -l 'DOC:' "${src[@]}" 2> /dev/null)
	if [ ${#docs[@]} -gt 0 ]; then
		for f in "${docs[@]}"; do
			d=$t/doc/$f
			dirs+=("${d%/*}")
		done
		mkdir -p "${dirs[@]}"
		doc_blocks "$t/doc" "${docs[@]}"
	fi

	# the repository's files (their directories and stems are added below)
	if git -C . rev-parse --is-inside-work-tree > /dev/null 2>&1; then
		git ls-files -co --exclude-standard |
			grep -vxFf <(git ls-files -d) > "$t/files"
	else
		find . \( -path ./build -o -path ./.git \) -prune -o -type f \
			-print | sed 's|^\./||' > "$t/files"
	fi

	# the names the documents use, sorted by file and line
	mapfile -t top < <(ls Documentation/*.rst README 2> /dev/null)
	{
		[ ${#top[@]} -eq 0 ] || refs "${top[@]}"
		[ ${#docs[@]} -eq 0 ] || (cd "$t/doc" && refs "${docs[@]}")
	} | sort -u | sort -t: -k1,1 -k2,2n > "$t/refs"

	awk -F '\t' -v kpaths="$kernel_paths" '
	# a glob (*, ?, [...]; NN-name and NN-* for numbered files) as an ERE
	function glob_re(g,   r, i, c, inb) {
		sub(/NN-name/, "NN-*", g)
		gsub(/NN-/, "[0-9][0-9]-", g)
		r = "^"
		for (i = 1; i <= length(g); i++) {
			c = substr(g, i, 1)
			if (inb) { r = r c; if (c == "]") inb = 0 }
			else if (c == "*") r = r ".*"
			else if (c == "?") r = r "."
			else if (c == "[") { r = r c; inb = 1 }
			else if (index(".+^$(){}|\\", c)) r = r "\\" c
			else r = r c
		}
		return r "$"
	}
	FILENAME == ARGV[1] { ident[$0] = 1; next }
	FILENAME == ARGV[2] { word[$0] = 1; next }
	FILENAME == ARGV[3] { klock[$0] = 1; next }
	FILENAME == ARGV[4] {
		nfiles++; files[nfiles] = $0; path[$0] = 1
		p = $0; sub(/.*\//, "", p); sub(/\..*/, "", p)
		if (p != "") word[p] = 1
		p = $0
		while (sub(/\/[^\/]*$/, "", p)) path[p] = 1
		next
	}
	{
		where = $1; kind = $2; name = $3
		if (kind == "function") {
			if (name in ident) next
		} else if (kind == "name") {
			if (name in word || name in ident) next
		} else if (kind == "lock") {
			sub(/.*(->|\.)/, "", name)
			if (name in ident || name in klock) next
		} else if (kind == "file") {
			p = name; sub(/\/$/, "", p)
			n = split(kpaths, kp, " ")
			for (i = 1; i <= n; i++)
				if (index(p "/", kp[i]) == 1) next
			if (p ~ /[*?[]|NN-/) {
				re = glob_re(p)
				for (i = 1; i <= nfiles; i++)
					if (files[i] ~ re) next
				for (q in path)
					if (q ~ re) next
			} else if (p in path)
				next
		}
		printf "%s: %s (%s) does not exist\n", where, name, kind
		bad = 1
	}
	END { exit bad }' "$t/ident" "$t/word" "$t/klock" "$t/files" "$t/refs"
	bad=$?
	rm -rf "$t"
	return $bad
}

self_test() {
	local t rc=0 out want
	t=$(mktemp -d)
	mkdir -p "$t/mpa" "$t/rdmap" "$t/Documentation" "$t/tools/e2e" "$t/build/mpa"
	cat > "$t/mpa/mpa.c" <<-'EOF'
	/**
	 * DOC: the test
	 *
	 * mpa_ok() and mpa_doc_gone() with &swi_s.ok_lock and @doc_lock.
	 */
	/* mpa_comment_only() is named by a comment only */
	struct swi_s { int ok_lock; int lock; };
	static const char *m = "mpa_string_only() mpa_counter";
	int mpa_ok(void) { return 0; }
	EOF
	printf '#define SWI_MACRO(x) (x)\n' > "$t/rdmap/r.h"
	printf 'int mpa_built(void);\n' > "$t/build/mpa/b.h"
	printf '#!/bin/sh\n' > "$t/tools/e2e/01-a.sh"
	printf 'ifneq ($(SWI_KUNIT),n)\n' > "$t/Kbuild"
	cat > "$t/Documentation/a.rst" <<-'EOF'
	``mpa_ok()`` and SWI_MACRO(1) in mpa/mpa.c, rdmap/, tools/e2e/*.sh,
	tools/e2e/NN-name.sh and the kernel's tools/testing/kunit/kunit.py,
	/dev/null, under ``s->ok_lock`` and ``rtnl_lock``; sys_read() and
	kernel_bind() are the kernel's, mpa_ in prose too; ``swi_s``,
	mpa_counter, ``SWI_KUNIT=n``, ``SWI_MAX_*``, mpa_gone.c, siw's
	mpa_crc_required.
	Gone: mpa_gone(), mpa_comment_only(), mpa_string_only(), mpa_built(),
	mpa/gone.c, rdmap/gone.[ch], ``p->gone_lock`` and ``swi_t.lock``;
	swi_plain_gone tx.c, ``SWI_GONE``.
	EOF
	printf 'See Documentation/a.rst and cm/.\n' > "$t/README"
	out=$(check "$t")
	[ $? -eq 1 ] || { echo "self-test: missing names did not fail"; rc=1; }
	want='Documentation/a.rst:7: mpa_gone (function) does not exist
Documentation/a.rst:7: mpa_comment_only (function) does not exist
Documentation/a.rst:7: mpa_string_only (function) does not exist
Documentation/a.rst:7: mpa_built (function) does not exist
Documentation/a.rst:8: mpa/gone.c (file) does not exist
Documentation/a.rst:8: rdmap/gone.[ch] (file) does not exist
Documentation/a.rst:8: gone_lock (lock) does not exist
Documentation/a.rst:8: swi_t (name) does not exist
Documentation/a.rst:9: swi_plain_gone (name) does not exist
Documentation/a.rst:9: SWI_GONE (name) does not exist
README:1: cm/ (file) does not exist
mpa/mpa.c:4: mpa_doc_gone (function) does not exist
mpa/mpa.c:4: doc_lock (lock) does not exist'
	if [ "$(sort <<< "$out")" != "$(sort <<< "$want")" ]; then
		echo "self-test: found"
		echo "$out"
		echo "self-test: instead of"
		echo "$want"
		rc=1
	fi
	rm -rf "$t"
	[ $rc -eq 0 ] && echo "check-doc-names: self-test passed"
	return $rc
}

if [ "${1:-}" = --self-test ]; then
	self_test
	exit
fi
check "${1:-$(cd "$(dirname "$0")/.." && pwd)}"
