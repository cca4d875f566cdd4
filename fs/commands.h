/*
 * The subcommands of the golemfs binary. Each subsystem owns its own
 * (policy/cmd_check.c, fs/cmd_mount.c, ...); main.c only dispatches.
 * Each returns the process exit status: 0 ok, 1 failed, 2 bad usage/config.
 */
#ifndef GFS_COMMANDS_H
#define GFS_COMMANDS_H

#include "policy/policy_cli.h" /* cmd_check */

int cmd_mount(int argc, char **argv);
int cmd_umount(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
