/* job.h: the runner's commands, what gen/cli dispatches to: `kunai job`
 * (job.c), `kunai phase` (phase.c), `kunai installable` (install.c). The
 * runner's own layers, bottom up: job_state.h (data), job_proc.h,
 * job_steps.h, job_plain.h, job_poll.h, job_k8s.h, job_sched.h. */
#ifndef KUNAI_JOB_H
#define KUNAI_JOB_H

/* `kunai job run|start`: returns the process exit status (0 passed, 1 not,
 * 2 usage). */
int cmd_job(int argc, char **argv);
/* `kunai phase phases/NAME.stamp`: runs the campaign phase NAME (rules/job/phase.c);
 * returns the exit status. */
int cmd_phase(int argc, char **argv);
/* `kunai installable install|uninstall`: one install edge of build.ninja
 * (rules/job/install.c); returns the exit status. */
int cmd_installable(int argc, char **argv);

#endif
