#!/bin/sh
# workloads/container/image.sh: builds kunai-workloads (workloads/Containerfile)
# with podman and exports it; `make image` runs it. Run from the top of the
# source tree.
#
#   sh workloads/container/image.sh [--version V] [--base IMAGE] [--tag NAME:TAG]
#                                   [--sqsh FILE] [--save FILE]
#
# Without --base, the base is localhost/kunai-debian-base:12, which this
# script makes when podman lacks it: mmdebstrap (or debootstrap) of Debian 12
# from the Debian mirrors that apt on this machine uses, then `podman import`;
# no registry is contacted. The image is tagged NAME:src-HASH, HASH being the
# sha256 of its inputs (the staged sources, the Containerfile, the base's
# image id), and NAME:VERSION (or --tag): when an image of that HASH exists,
# nothing is built. --sqsh writes the image as enroot imports it (what
# `enroot import podman://IMAGE` makes, a squashfs of the root filesystem
# with /etc/rc, /etc/environment and /etc/fstab), cached by HASH beside the
# base; --save writes `podman save`'s archive (docker-archive).
# The last line on stdout names the image (NAME:src-HASH).
#
# Environment: PODMAN (default podman), KUNAI_IMAGE_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/kunai: the .sqsh exports), KUNAI_BASE_TAR
# (a rootfs tarball: imported as the base when it exists, written by the
# bootstrap when it does not), ENROOT_SQUASH_OPTIONS (enroot's default,
# -comp lzo -noD).
# Exit status: 0 done, 1 a failure, 3 this machine cannot (no podman, no
# bootstrap tool, no Debian 12 mirror, podman cannot run containers).

prog=image.sh
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { say "$*"; exit 1; }
cannot() { say "$*"; exit 3; }

version=0.1.0 base= tag= sqsh= save= name=kunai-workloads
local_base=localhost/kunai-debian-base:12
while [ $# -gt 0 ]; do
	case $1 in
	--version) version=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--tag) tag=$2; shift 2 ;;
	--sqsh) sqsh=$2; shift 2 ;;
	--save) save=$2; shift 2 ;;
	*) printf 'usage: %s [--version V] [--base IMAGE] [--tag NAME:TAG] [--sqsh FILE] [--save FILE]\n' "$prog" >&2
		exit 2 ;;
	esac
done
[ -f workloads/Containerfile ] && [ -f Makefile.in ] || die "run me from the top of kunai's source tree"
[ -n "$tag" ] || tag=$name:$version
name=${tag%:*}
here=$PWD/workloads/container
PODMAN=${PODMAN:-podman}
cache=${KUNAI_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kunai}

command -v "${PODMAN%% *}" >/dev/null 2>&1 || cannot "no podman (apt-get install podman)"
# podman's runtime makes / a private mount ("remount /, flags: 0x44000: invalid
# argument" from runc), which fails where / is no mount point of its own: a
# plain chroot. Said here, before minutes of building.
awk '$5 == "/" { f = 1 } END { exit !f }' /proc/self/mountinfo 2>/dev/null ||
	cannot "/ is not a mount point here (a chroot without its own root mount): podman cannot run containers"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kunai-image.XXXXXX") || die "cannot make a temporary directory"
cid=
# the file being written beside its final name (in a cache, or a base tar,
# that other runs may share): named by this process, renamed into place,
# removed if it ends first
part=
cleanup() {
	[ -n "$cid" ] && $PODMAN rm -f "$cid" >/dev/null 2>&1
	[ -z "$part" ] || rm -f "$part"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The Debian 12 mirrors apt uses here, as sources.list lines
debian_sources() {
	apt-get indextargets --format 'deb $(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Identifier: Packages' 'Origin: Debian' 2>/dev/null | grep ' bookworm[^ ]* ' | sort -u
}

# make_base: localhost/kunai-debian-base:12 from KUNAI_BASE_TAR or a bootstrap
make_base() {
	t=${KUNAI_BASE_TAR:-$tmp/base.tar}
	if [ ! -s "$t" ]; then
		part=$t.$$.tmp
		debian_sources >"$tmp/sources.list"
		[ -s "$tmp/sources.list" ] ||
			cannot "apt has no Debian 12 (bookworm) mirror configured here: cannot make the base image"
		say "making the Debian 12 base from $(awk '{print $2}' "$tmp/sources.list" | sort -u | paste -sd' ' -)"
		if command -v mmdebstrap >/dev/null 2>&1; then
			mmdebstrap --quiet --variant=minbase --format=tar bookworm "$part" - <"$tmp/sources.list" ||
				die "mmdebstrap failed"
		elif command -v debootstrap >/dev/null 2>&1; then
			debootstrap --variant=minbase bookworm "$tmp/rootfs" "$(awk '$3 == "bookworm" { print $2; exit }' "$tmp/sources.list")" \
				>"$tmp/debootstrap.log" 2>&1 || { tail -20 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
			cp "$tmp/sources.list" "$tmp/rootfs/etc/apt/sources.list" &&
				rm -rf "$tmp/rootfs/var/cache/apt/archives"/*.deb "$tmp/rootfs/var/lib/apt/lists"/* &&
				tar -C "$tmp/rootfs" -cf "$part" . || die "cannot pack the debootstrap root"
			rm -rf "$tmp/rootfs"
		else
			cannot "neither mmdebstrap nor debootstrap (apt-get install mmdebstrap)"
		fi
		mv -f "$part" "$t" || die "cannot write $t"
		part=
	fi
	$PODMAN import --change 'CMD ["/bin/bash"]' "$t" "$local_base" >/dev/null || die "podman import failed"
}

# can_run IMAGE: podman runs a container of IMAGE; where it cannot set the
# rlimits it asks for by default (no CAP_SYS_RESOURCE), with kunai's
# containers.conf (default_ulimits = []) unless CONTAINERS_CONF is set
can_run() {
	$PODMAN run --rm --network=host "$1" true >/dev/null 2>"$tmp/run.err" && return 0
	if [ -z "${CONTAINERS_CONF:-}" ] && grep -q rlimit "$tmp/run.err"; then
		CONTAINERS_CONF=$here/containers.conf
		export CONTAINERS_CONF
		$PODMAN run --rm --network=host "$1" true >/dev/null 2>"$tmp/run.err" && return 0
	fi
	cannot "podman cannot run containers here: $(grep -v '^$' "$tmp/run.err" | tail -1)"
}

start=$(date +%s)
if [ -z "$base" ]; then
	base=$local_base
	$PODMAN image exists "$base" || make_base
	pull=--pull=never
	can_run "$base"
	base_id=$($PODMAN image inspect --format '{{.Id}}' "$base") || die "cannot inspect $base"
else
	pull= base_id=$base
fi

# The build context: the sources `make install` needs (no tests, no build
# outputs, no build dirs of campaigns)
mkdir "$tmp/ctx" || die "cannot make $tmp/ctx"
top=
for e in configure Makefile.in README.md kunai.1 doc conf gen rules reports workloads; do
	[ -e "$e" ] && top="$top $e"
done
# shellcheck disable=SC2086 # names without blanks, from the tree's top
find $top -type f ! -name '*.o' ! -name '*.tmp' \
	! -name '*~' ! -path 'workloads/gemm' ! -path 'workloads/train_smoke' ! -path 'workloads/health' \
	! -path 'workloads/allreduce' ! -path 'workloads/ddp_smoke' ! -path 'workloads/bisection' |
	LC_ALL=C sort >"$tmp/files" || die "cannot list the sources"
tar -cf - -T "$tmp/files" | tar -xf - -C "$tmp/ctx" || die "cannot stage the sources"
hash=$( { (cd "$tmp/ctx" && xargs sha256sum <"$tmp/files"); printf '%s\n' "$base_id" "$version"; } |
	sha256sum | cut -c1-16)
ref=localhost/$name:src-$hash

if $PODMAN image exists "$ref"; then
	say "$ref is up to date (inputs unchanged)"
else
	say "building $ref from $base"
	$PODMAN build $pull --network=host --build-arg "BASE=$base" -f workloads/Containerfile \
		-t "$ref" "$tmp/ctx" >"$tmp/build.log" 2>&1 || { tail -40 "$tmp/build.log" >&2; die "podman build failed"; }
	# older builds of this name go (their layers stay in podman's cache)
	for old in $($PODMAN images --format '{{.Repository}}:{{.Tag}}' "localhost/$name" | grep ':src-'); do
		[ "$old" = "$ref" ] || $PODMAN rmi "$old" >/dev/null 2>&1
	done
	say "built $ref in $(($(date +%s) - start)) s"
fi
$PODMAN tag "$ref" "$tag" || die "cannot tag $tag"

# enroot's layout (enroot import podman://IMAGE): the root filesystem with
# /etc/rc (the command), /etc/environment (ENV), /etc/fstab (volumes)
export_sqsh() {
	out=$cache/$name-src-$hash.sqsh
	# one export per image name: those of older sources go
	for old in "$cache/$name-src-"*.sqsh; do
		[ "$old" = "$out" ] || rm -f "$old"
	done
	[ -s "$out" ] && return 0
	command -v mksquashfs >/dev/null 2>&1 || die "no mksquashfs (apt-get install squashfs-tools)"
	mkdir -p "$cache" "$tmp/rootfs" || die "cannot make $cache"
	cid=$($PODMAN create "$ref" true) || die "podman create failed"
	$PODMAN export "$cid" | tar -C "$tmp/rootfs" --warning=no-timestamp --anchored --exclude='dev/*' \
		--exclude='./dev/*' --exclude='.dockerenv' -px || die "cannot unpack $ref"
	$PODMAN rm -f "$cid" >/dev/null 2>&1
	cid=
	r=$tmp/rootfs
	mkdir -p "$r/etc" || die "cannot write $r/etc"
	$PODMAN image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$ref" | grep -v '^$' \
		>"$r/etc/environment" || die "cannot inspect $ref"
	$PODMAN image inspect --format '{{range $k, $v := .Config.Volumes}}{{println $k}}{{end}}' "$ref" |
		awk 'NF { print "${ENROOT_ROOTFS}" $0, $0, "none x-create=dir,bind,rw,nosuid,nodev" }' \
			>"$r/etc/fstab" || die "cannot inspect $ref"
	cmd=$($PODMAN image inspect --format '{{range .Config.Entrypoint}}{{printf "%q " .}}{{end}}{{range .Config.Cmd}}{{printf "%q " .}}{{end}}' "$ref")
	wd=$($PODMAN image inspect --format '{{.Config.WorkingDir}}' "$ref")
	cat >"$r/etc/rc" <<-EOF
	mkdir -p "${wd:-/}" 2> /dev/null
	cd "${wd:-/}" && unset OLDPWD || exit 1

	if [ -s /etc/rc.local ]; then
	    . /etc/rc.local
	fi

	if [ \$# -gt 0 ]; then
	    exec "\$@"
	else
	    exec ${cmd:-/bin/sh}
	fi
	EOF
	printf '# This file is sourced by /etc/rc when the container starts.\n' >"$r/etc/rc.local"
	part=$out.$$.tmp
	mksquashfs "$r" "$part" -all-root -noappend -no-progress ${ENROOT_SQUASH_OPTIONS:--comp lzo -noD} \
		>"$tmp/mksquashfs.log" 2>&1 || { tail -20 "$tmp/mksquashfs.log" >&2; die "mksquashfs failed"; }
	mv -f "$part" "$out" || die "cannot write $out"
	part=
	rm -rf "$r"
}

if [ -n "$sqsh" ]; then
	export_sqsh
	# a hard link to the cached export where it can be one
	part=$sqsh.$$.tmp
	{ ln "$out" "$part" 2>/dev/null || cp "$out" "$part"; } && mv -f "$part" "$sqsh" ||
		die "cannot write $sqsh"
	part=
	say "wrote $sqsh (enroot/pyxis: srun --container-image=$sqsh)"
fi
if [ -n "$save" ]; then
	rm -f "$save.tmp"
	$PODMAN save -q -o "$save.tmp" "$tag" && mv -f "$save.tmp" "$save" || die "podman save failed"
	say "wrote $save (podman load -i $save, or push $tag to a registry)"
fi
printf '%s\n' "$ref"
