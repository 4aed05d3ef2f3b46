/* ncclparse: prints what kunai's grader reads from nccl-tests text output
 * (reports/grade/nccl_parse.c's nccl_parse), for the bats suites: one "key value" line
 * each for rows, max_busbw, avg_busbw, footer_avg, wrong, oob. usage:
 * ncclparse FILE ("-" for standard input). Exit 1 when the text holds no
 * result, 2 on usage or I/O errors. */
#include <stdio.h>

#include "reports/grade/parse.h"
#include "gen/base/util.h"

int
main(int argc, char **argv)
{
	struct nccl_result r;
	struct buf text = {0};

	if (argc != 2) {
		fputs("usage: ncclparse FILE\n", stderr);
		return 2;
	}
	if (!read_file(argv[1], &text))
		return 2;
	if (!nccl_parse(text.data ? text.data : "", text.len, &r)) {
		buf_free(&text);
		return 1;
	}
	printf("rows %zu\nmax_busbw %g\nmax_busbw_size %.0f\navg_busbw %g\nfooter_avg %d\nwrong %ld\nhas_oob %d\noob %ld\n",
	       r.rows, r.max_busbw, r.max_busbw_size, r.avg_busbw, r.footer_avg, r.wrong, r.has_oob, r.oob);
	buf_free(&text);
	return 0;
}
