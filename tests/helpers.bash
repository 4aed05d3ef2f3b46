# tests/helpers.bash: what several bats files share (`load helpers`).

# need_cloudai: CloudAI's own example configs and reference scripts are
# third-party material (SHARED=DIR, see README): a test that reads them is
# skipped, with this reason, without it.
need_cloudai() {
	[ -d "$SHARED/cloudai-compat" ] || skip "no CloudAI reference material: set SHARED=DIR (see README)"
}
