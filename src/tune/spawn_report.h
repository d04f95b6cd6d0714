/* Owns the record smartarrays-spawn (spawn_helper.c) writes for the tune layer (spawn.cpp): how the
   command it ran ended and what it cost, as wait4 reported them. Plain C, for both sides. */
#pragma once

#include <sys/resource.h>

/* What smartarrays-spawn writes to its report descriptor once the command it started has ended. */
struct smartarrays_spawn_report {
  int status;           /* wait4's status of the command */
  int exec_error;       /* errno of the command's exec; 0 when it started */
  struct rusage usage;  /* wait4's resource usage of the command alone */
};
