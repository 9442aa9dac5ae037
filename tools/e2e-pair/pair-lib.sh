# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest scripts of the two-guest tests (sourced in the
# guest after tools/e2e/lib.sh). The sourcing script sets $summary (its
# summary file), $peer_ip and $SYNC_PORT before calling say/hear, and
# counts failures in $bad.
#
# The guests synchronise over a side TCP connection (busybox nc on
# SYNC_PORT): one guest says a word, the other hears it.

bad=0

log() { echo "$*" | tee -a "$summary"; }

# check DESCRIPTION COMMAND...: count a failure, go on
check() {
	local what=$1
	shift
	if "$@"; then
		log "ok   $what"
	else
		log "FAIL $what"
		bad=$((bad + 1))
	fi
}

die() {
	log "FAIL (fatal) $*"
	exit 1
}

# say WORD: hand WORD to the peer guest, retrying until it listens.
say() {
	local end=$((SECONDS + 180))
	while [ $SECONDS -lt $end ]; do
		timeout 5 bash -c "echo $1 > /dev/tcp/$peer_ip/$SYNC_PORT" 2>/dev/null &&
			return 0
		sleep 0.2
	done
	die "peer never took '$1'"
}

# hear WORD [SECS]: wait for the peer guest to say WORD.
hear() {
	local got
	got=$(timeout "${2:-240}" busybox nc -l -p "$SYNC_PORT" < /dev/null) ||
		die "nothing from peer while waiting for '$1'"
	[ "$got" = "$1" ] || die "expected '$1' from peer, got '$got'"
}

# wait_listen PORT: until a TCP listener shows on PORT (30 s at most).
wait_listen() {
	local i
	for i in $(seq 150); do
		[ -n "$(timeout 10 ss -Hltn "sport = :$1")" ] && return 0
		sleep 0.2
	done
	echo "WARN: no TCP listener on port $1 after $i polls" >&2
}

# port_active DEV: the RDMA port of DEV is ACTIVE (waits 10 s at most).
port_active() {
	local i
	for i in $(seq 50); do
		[[ $(timeout 10 rdma link show "$1/1") == *"state ACTIVE"* ]] &&
			return 0
		sleep 0.2
	done
	return 1
}

# sync_up ME: both guests up; B says so, A answers.
sync_up() {
	if [ "$1" = a ]; then
		hear up
		say go
	else
		say up
		hear go
	fi
}
