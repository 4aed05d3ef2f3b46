/* cmds.h: the subcommands main.c dispatches to (one file each). */
#ifndef KUNAI_CMDS_H
#define KUNAI_CMDS_H

struct buf;

/* Each returns the process exit status: 0, 1 (bad input/I-O), 2 (usage). */
int cmd_gen(int argc, char **argv);
int cmd_dry_run(int argc, char **argv);
int cmd_verify_configs(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_grade(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_phase(int argc, char **argv);

/* kunai gen with argv as gen's; on success (0) the build dir's path is
 * appended to dir. Returns the exit status, as cmd_gen. */
int gen_build_dir(int argc, char **argv, struct buf *dir);

/* Returns the directory holding rules/ and conf/ (see main.c); may use out. */
const char *kunai_datadir(struct buf *out);

#endif
