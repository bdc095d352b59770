/*
 * Where a profile was measured: the machine, its kernel and CPU frequency
 * governor, whether it is a virtual machine, how loaded it was before and
 * after, and the compiler that built the measured program. The collector
 * driver stores it in every profile's header as "environment"
 * (docs/profile-format.md), so two profiles from different machines are
 * not compared without a word.
 */
#ifndef COLLECT_MACHINE_H
#define COLLECT_MACHINE_H

struct buf;

/* The 1-minute load average, or -1 when /proc/loadavg cannot be read. */
double machine_loadavg(void);

/*
 * Appends the "environment" object's JSON to @out: the host (a hash of
 * /etc/machine-id, never the name), CPU model, online cores, kernel and
 * architecture, cpufreq governor, VM or not (and the hypervisor's name when
 * cpuid gives one), @load_before and @load_after (negative: left out), and
 * the compiler named in the ELF .comment section of @cmd (looked up on
 * PATH as exec would in @cwd, NULL: ours; null when it has none, as a
 * script).
 */
void machine_env_json(struct buf *out, const char *cwd, const char *cmd, double load_before,
		      double load_after);

/* The compiler line(s) of @path's ELF .comment, "; "-joined, or NULL
 * (caller frees). */
char *machine_elf_compiler(const char *path);

#endif
