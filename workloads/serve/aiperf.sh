#!/bin/sh
# aiperf.sh: kunai's aiperf run for AIDynamo when aiperf runs without its
# phase script (ai_dynamo.sh calls it on the frontend node): `CMD --model M
# --endpoint-type chat --streaming --url URL ARGS --artifact-dir DIR EXTRA`,
# then aiperf's profile_export_aiperf.csv copied to the report name CloudAI
# reads. POSIX sh.
set -u
log() { printf '[%s %s]: %s\n' "$(date '+%F %T')" "$(hostname)" "$*"; }
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

result_dir=. model= url=http://localhost port=8000 cmd='aiperf profile' report=aiperf_report.csv
extra= setup= art=aiperf_artifacts args=
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	--result-dir) result_dir=$2 ;;
	--model) model=$2 ;;
	--url) url=$2 ;;
	--port) port=$2 ;;
	--cmd) cmd=$2 ;;
	--report-name) report=$2 ;;
	--extra-args) extra=$2 ;;
	--setup-cmd) setup=$2 ;;
	--artifact-dir-name) art=$2 ;;
	esac
	[ $# -ge 2 ] && shift 2 || shift
done
while [ $# -ge 2 ]; do
	case $2 in
	True | true) args="$args $1" ;;
	False | false) ;;
	*) args="$args $1 $(q "$2")" ;;
	esac
	shift 2
done
case $art in /*) ;; *) art=$result_dir/$art ;; esac
case $report in /*) ;; *) report=$result_dir/$report ;; esac
[ -z "$setup" ] || bash -lc "$setup" || exit $?
full="$cmd --model $(q "$model") --endpoint-type chat --streaming --url $(q "$url:$port")$args --artifact-dir $(q "$art") $extra"
log "running: $full"
eval "$full" || exit $?
mkdir -p "$(dirname "$report")" && cp "$art/profile_export_aiperf.csv" "$report" || exit 1
log "report: $report"
