#!/bin/sh
# accuracy.sh: kunai's aiperf accuracy run for AIDynamo (ai_dynamo.sh calls
# it on the frontend node): ENTRYPOINT followed by CLI, whose {model}, {url}
# and {artifact_dir} are filled in, then accuracy_results.csv copied to the
# results dir, where CloudAI's parser looks first. POSIX sh.
set -u
log() { printf '[%s %s]: %s\n' "$(date '+%F %T')" "$(hostname)" "$*"; }

result_dir=. model= url=http://localhost port=8000 entry='aiperf profile' cli= setup= art=aiperf_accuracy_artifacts
while [ $# -gt 0 ]; do
	case $1 in
	--) break ;;
	--result-dir) result_dir=$2 ;;
	--model) model=$2 ;;
	--url) url=$2 ;;
	--port) port=$2 ;;
	--entrypoint) entry=$2 ;;
	--cli) cli=$2 ;;
	--setup-cmd) setup=$2 ;;
	--artifact-dir-name) art=$2 ;;
	esac
	[ $# -ge 2 ] && shift 2 || shift
done
case $art in /*) ;; *) art=$result_dir/$art ;; esac
[ -z "$setup" ] || bash -lc "$setup" || exit $?
# the placeholders, as literal text in the command line
sub() { printf '%s' "$1" | sed "s|$2|$(printf '%s' "$3" | sed 's/[|&\\]/\\&/g')|g"; }
line=$(printf '%s' "$cli" | tr '\n' ' ')
line=$(sub "$line" '{model}' "$model")
line=$(sub "$line" '{url}' "$url:$port")
line=$(sub "$line" '{artifact_dir}' "$art")
mkdir -p "$art"
log "running: $entry $line"
eval "$entry $line" || exit $?
[ -s "$art/accuracy_results.csv" ] && cp "$art/accuracy_results.csv" "$result_dir/accuracy_results.csv"
exit 0
