#!/bin/bash
# Bad input anywhere: one line on stderr, a non-zero status, nothing changed.
. "$(dirname "$0")/lib.sh"
mkdir "$T/nowhere" && cd "$T/nowhere"
for cmd in status add rm log show collect push pull commit; do
	fails 2 veles "$cmd" x
	has "$T/err" "not a Veles project"
done
fails 2 veles
fails 2 veles --bogus
ok veles --version
has "$T/out" "^veles [0-9]+\.[0-9]+"
ok veles --help
for cmd in init config status add rm log show collect push pull commit; do
	ok veles "$cmd" --help
	has "$T/out" "^usage: veles $cmd"
	ok veles help "$cmd"
done

new_git_project p
for cmd in status add rm log show push pull commit; do
	fails 2 veles "$cmd" --no-such-option
done
fails 2 veles status extra
fails 2 veles log --format xml
fails 2 veles status --format yaml
fails 2 veles -C "$T/does-not-exist" status
# None of the failures above touched the store.
git rev-parse -q --verify refs/veles/ledger >/dev/null && fail "ledger made by failed commands"
true
