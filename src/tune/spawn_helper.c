/* Owns smartarrays-spawn, the launcher the tune layer runs each command through (spawn.cpp): a
   static program, executed from memory, that starts the command, waits for it and writes its
   smartarrays_spawn_report to the descriptor it is given. Forked from this small process, the
   command's peak RSS is its own: forked from the caller, a child's ru_maxrss counts the caller's
   resident memory at the fork (Linux copies the caller's page tables and their count), and with
   vfork or posix_spawn the caller's peak.
     smartarrays-spawn REPORT_FD PROGRAM [ARGS...]    (PROGRAM searched in PATH, as execvp does) */
#define _GNU_SOURCE  /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tune/spawn_report.h"

int main(int argc, char** argv) {
  if (argc < 3) return 125;
  const int report = atoi(argv[1]);
  int errors[2];
  if (fcntl(report, F_SETFD, FD_CLOEXEC) != 0 || pipe2(errors, O_CLOEXEC) != 0) return 125;
  const pid_t pid = fork();
  if (pid < 0) return 125;
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    const int error = errno;
    const ssize_t written = write(errors[1], &error, sizeof error);
    (void)written;
    _exit(127);
  }
  close(errors[1]);
  struct smartarrays_spawn_report record = {0};
  while (wait4(pid, &record.status, 0, &record.usage) < 0) {
    if (errno != EINTR) return 125;
  }
  if (read(errors[0], &record.exec_error, sizeof record.exec_error) != sizeof record.exec_error) record.exec_error = 0;
  return write(report, &record, sizeof record) == sizeof record ? 0 : 125;
}
