/* measure: runs a command and prints its wall time and peak RSS,
 *     measure [-c] [-o FILE] CMD [ARG...]   ->   "<seconds> <peak RSS in KB>" on
 * stderr, or appended to FILE with -o; -c appends " <CPU seconds>" (user and
 * system time of the command and of every descendant it waited for: a figure
 * that load on the machine disturbs far less than wall time),
 * with the command's own output left alone and its exit status passed on
 * (128+N when killed by signal N). The peak comes from wait4's rusage, so
 * a short spike is not missed the way sampling /proc would miss it. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	FILE *out = stderr;
	int cpu = 0;
	pid_t pid;
	int status;

	if (argc > 1 && strcmp(argv[1], "-c") == 0) {
		cpu = 1;
		argv++;
		argc--;
	}
	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = fopen(argv[2], "a");
		if (!out) {
			perror(argv[2]);
			return 1;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fputs("usage: measure [-c] [-o FILE] CMD [ARG...]\n", stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("measure: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("measure: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("measure: wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(out, "%.3f %ld", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	        ru.ru_maxrss);
	if (cpu)
		fprintf(out, " %.4f", (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		                          (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	fputc('\n', out);
	if (out != stderr && fclose(out) != 0) {
		perror("measure: write");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
