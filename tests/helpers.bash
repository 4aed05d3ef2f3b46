# tests/helpers.bash: what several bats files share (`load helpers`).

# need_cloudai: CloudAI's own example configs and reference scripts are
# third-party material (SHARED=DIR, see doc/manual.md, "Building"): a test that reads them is
# skipped, with this reason, without it.
need_cloudai() {
	[ -d "$SHARED/cloudai-compat" ] || skip "no CloudAI reference material: set SHARED=DIR (see doc/manual.md, Building)"
}

# standalone_campaign DIR: DIR/system.toml, a standalone system, and
# DIR/tests/ok.toml, a BashCmd test that echoes ok
standalone_campaign() {
	mkdir -p "$1/tests"
	printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./install"\noutput_path = "./results"\n' \
		>"$1/system.toml"
	printf 'name = "ok"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo ok"\n' \
		>"$1/tests/ok.toml"
}
