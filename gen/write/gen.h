/* gen.h: `kunai gen` and `kunai dry-run`: the campaign read, validated,
 * expanded and written as a build dir. */
#ifndef KUNAI_GEN_H
#define KUNAI_GEN_H

struct buf;

/* Each returns the process exit status: 0, 1 (bad input/I-O), 2 (usage). */
int cmd_gen(int argc, char **argv);
int cmd_dry_run(int argc, char **argv);

/* kunai gen with argv as gen's; on success (0) the build dir's path is
 * appended to dir. Returns the exit status, as cmd_gen. */
int gen_build_dir(int argc, char **argv, struct buf *dir);

#endif
