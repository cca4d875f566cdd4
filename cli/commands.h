/*
 * The subcommands of the golemfs binary, one file each in cli/ (as git
 * keeps builtin/ apart from its library); main.c only dispatches. The
 * libraries (policy/, audit/, staging/, fs/) hold no command code.
 * Each returns the process exit status: 0 ok, 1 failed, 2 bad usage/config.
 */
#ifndef GFS_COMMANDS_H
#define GFS_COMMANDS_H

int cmd_mount(int argc, char **argv);
int cmd_umount(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_staged(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_discard(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_trust(int argc, char **argv);
int cmd_approve(int argc, char **argv);

#endif
