# tests/podman.bash: the workload image for the suites that run it for real
# (image.bats, run_k8s.bats; `load podman`). image_setup builds it with
# workloads/container/image.sh, which reuses an image of the same inputs
# (seconds) and else builds one (minutes the first time on a machine: the
# Debian base, apt, the compile).

# image_setup: sets IMAGE (the image's reference) and exports CONTAINERS_CONF
# where podman needs kunai's (see workloads/container/containers.conf); or
# IMAGE_SKIP (why this machine cannot) or IMAGE_FAIL (the build's log). Once
# per bats process (setup_file's exports reach its tests): image.sh checks
# the sources' hash each time, a few seconds when the image is up to date.
image_setup() {
	[ -n "${IMAGE_DONE:-}" ] && return 0
	IMAGE= IMAGE_SKIP= IMAGE_FAIL=
	eval "$(image_build)"
	IMAGE_DONE=1
	export IMAGE IMAGE_SKIP IMAGE_FAIL IMAGE_DONE
	[ -z "${CONTAINERS_CONF:-}" ] || export CONTAINERS_CONF
}

# image_build: image_setup's variables as shell assignments
image_build() {
	local top=$BATS_TEST_DIRNAME/.. log=$BATS_TEST_DIRNAME/.out/image.log ref rc t0
	mkdir -p "${log%/*}" || return 1
	if [ "$(id -u)" != 0 ]; then
		printf 'IMAGE_SKIP=%q\n' "needs root (rootful podman; sshd on port 222 of 127.0.0.2 and 127.0.0.3)"
		return
	fi
	if ! command -v podman >/dev/null; then
		printf 'IMAGE_SKIP=%q\n' "no podman (apt-get install podman runc mmdebstrap squashfs-tools)"
		return
	fi
	t0=$(date +%s)
	ref=$(cd "$top" && sh workloads/container/image.sh --version "${VERSION:-0.1.0}" 2>"$log")
	rc=$?
	case $rc in
	0) printf 'IMAGE=%q\n' "$ref" ;;
	3) printf 'IMAGE_SKIP=%q\n' "$(sed -n '$s/^image.sh: //p' "$log")"; return ;;
	*) printf 'IMAGE_FAIL=%q\n' "$log"; return ;;
	esac
	echo "# kunai-workloads: $ref ready in $(($(date +%s) - t0)) s" >&3
	# as image.sh decides: kunai's containers.conf only where podman needs it
	if [ -z "${CONTAINERS_CONF:-}" ] && ! podman run --rm --network=host "$ref" true 2>/dev/null; then
		printf 'CONTAINERS_CONF=%q\n' "$top/workloads/container/containers.conf"
	fi
}

# need_image: skips the test, with the reason, where podman cannot run the
# image; fails it with the build's log where the build failed
need_image() {
	image_setup
	[ -z "$IMAGE_SKIP" ] || skip "$IMAGE_SKIP"
	if [ -n "$IMAGE_FAIL" ]; then
		tail -40 "$IMAGE_FAIL"
		false
	fi
}

# podman_cleanup LABEL: removes every container labelled kunai.test=LABEL
podman_cleanup() {
	local ids
	[ -n "${IMAGE:-}" ] || return 0
	ids=$(podman ps -aq --filter "label=kunai.test=$1")
	[ -z "$ids" ] || podman rm -f -t 0 $ids >/dev/null 2>&1
	return 0
}

# port_closed ADDR PORT: nothing listens there (no sshd left behind)
port_closed() {
	! (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}
