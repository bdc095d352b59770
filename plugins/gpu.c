/*
 * gpu: NVIDIA GPUs through NVML, which is loaded at run time with dlopen so
 * the module (and Veles) need no NVIDIA package to build or start. On a
 * machine without libnvidia-ml init says so and fails, which unloads the
 * module. Per GPU: utilisation %, memory utilisation %, memory used (MB),
 * temperature (C) and power (W). Takes no options.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/vmon-module.h"

#define MAXGPU 16
#define NVML_TEMPERATURE_GPU 0

/* The few NVML types used, as nvml.h declares them. */
typedef void *nvml_device;
struct nvml_utilization {
	unsigned int gpu, memory;
};
struct nvml_memory {
	unsigned long long total, free, used;
};

static struct {
	void *dl;
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned int *);
	int (*handle)(unsigned int, nvml_device *);
	int (*util)(nvml_device, struct nvml_utilization *);
	int (*mem)(nvml_device, struct nvml_memory *);
	int (*temp)(nvml_device, int, unsigned int *);
	int (*power)(nvml_device, unsigned int *);
} nv;

static const struct vmon_helpers *H;
static unsigned ngpu;
static double val[MAXGPU][5]; /* util, memutil, memMB, temp, watts */

/* Looks up @name in NVML; false when it is missing. */
static int sym(void *out, const char *name)
{
	void *p = dlsym(nv.dl, name);

	memcpy(out, &p, sizeof(p));
	return p != NULL;
}

static int load_nvml(struct vmon_ctx *c)
{
	nv.dl = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nv.dl) {
		H->error(c, "NVML not found (libnvidia-ml.so.1): no NVIDIA driver here");
		return -1;
	}
	if (!sym(&nv.init, "nvmlInit_v2") || !sym(&nv.shutdown, "nvmlShutdown") ||
	    !sym(&nv.count, "nvmlDeviceGetCount_v2") ||
	    !sym(&nv.handle, "nvmlDeviceGetHandleByIndex_v2") ||
	    !sym(&nv.util, "nvmlDeviceGetUtilizationRates") ||
	    !sym(&nv.mem, "nvmlDeviceGetMemoryInfo") ||
	    !sym(&nv.temp, "nvmlDeviceGetTemperature") ||
	    !sym(&nv.power, "nvmlDeviceGetPowerUsage")) {
		H->error(c, "NVML lacks a function this module needs");
		return -1;
	}
	if (nv.init() != 0 || nv.count(&ngpu) != 0) {
		H->error(c, "NVML did not start");
		return -1;
	}
	if (ngpu > MAXGPU)
		ngpu = MAXGPU;
	return 0;
}

static int gpu_init(struct vmon_ctx *c, const struct vmon_helpers *h, const char *options,
		    const char **discriminator)
{
	H = h;
	if (options[0]) {
		h->error(c, "takes no options (got '%s')", options);
		return -1;
	}
	if (load_nvml(c) < 0) {
		if (nv.dl)
			dlclose(nv.dl);
		nv.dl = NULL;
		return -1;
	}
	*discriminator = "gpu";
	return 0;
}

static void gpu_get_data(struct vmon_ctx *c)
{
	for (unsigned i = 0; i < ngpu; i++) {
		nvml_device d;
		struct nvml_utilization u = {0, 0};
		struct nvml_memory m = {0, 0, 0};
		unsigned int temp = 0, mw = 0;
		char line[160];

		if (nv.handle(i, &d) != 0)
			continue;
		nv.util(d, &u);
		nv.mem(d, &m);
		nv.temp(d, NVML_TEMPERATURE_GPU, &temp);
		nv.power(d, &mw);
		snprintf(line, sizeof(line), "gpu %u %u %u %llu %u %u", i, u.gpu, u.memory,
			 m.used >> 20, temp, mw);
		H->record(c, line);
	}
}

static void gpu_analyze(struct vmon_ctx *c, const char *line)
{
	unsigned i, ug, um, t, mw;
	unsigned long long mb;

	(void)c;
	if (sscanf(line, "gpu %u %u %u %llu %u %u", &i, &ug, &um, &mb, &t, &mw) != 6 || i >= MAXGPU)
		return;
	if (i >= ngpu)
		ngpu = i + 1; /* playback: the recording says how many */
	val[i][0] = ug;
	val[i][1] = um;
	val[i][2] = (double)mb;
	val[i][3] = t;
	val[i][4] = mw / 1000.0;
}

static void gpu_brief(struct vmon_ctx *c, enum vmon_brief type, struct vmon_text *line)
{
	double util = 0, mb = 0;

	(void)c;
	for (unsigned i = 0; i < ngpu; i++) {
		util += val[i][0] / (ngpu ? ngpu : 1);
		mb += val[i][2];
	}
	if (type == VMON_BRIEF_TITLE)
		H->append(line, "<----GPU---->");
	else if (type == VMON_BRIEF_HEADER)
		H->append(line, " Util%%  MemMB");
	else
		H->append(line, " %5.0f %6.0f", util, mb);
}

static void gpu_verbose(struct vmon_ctx *c, int print_header, struct vmon_text *out)
{
	(void)c;
	if (print_header)
		H->append(out, "\n# GPU STATISTICS\n#Gpu Util%% MemUtil%%  MemMB TempC Watts\n");
	for (unsigned i = 0; i < ngpu; i++)
		H->append(out, " %3u %5.0f %8.0f %6.0f %5.0f %5.1f\n", i, val[i][0], val[i][1],
			  val[i][2], val[i][3], val[i][4]);
}

static void gpu_plot(struct vmon_ctx *c, enum vmon_plot type, struct vmon_text *line)
{
	static const char *const names[] = {"Util%", "MemUtil%", "MemMB", "TempC", "Watts"};
	char s = H->separator(c);

	for (unsigned i = 0; i < ngpu; i++)
		for (int k = 0; k < 5; k++)
			if (type == VMON_PLOT_HEADER)
				H->append(line, "%c[GPU:%u]%s", s, i, names[k]);
			else
				H->append(line, "%c%.1f", s, val[i][k]);
}

/* "gpu0.util" ...: one name per GPU and value, as the plot columns. */
static void gpu_export(struct vmon_ctx *c, struct vmon_export *e)
{
	static const char *const names[] = {"util", "memutil", "memmb", "temp", "watts"};
	static const char *const units[] = {"%", "%", "MB", "C", "W"};

	(void)c;
	for (unsigned i = 0; i < ngpu; i++)
		for (int k = 0; k < 5; k++) {
			char name[32];

			snprintf(name, sizeof(name), "gpu%u.%s", i, names[k]);
			H->export_value(e, name, units[k], val[i][k]);
		}
}

static void gpu_update_header(struct vmon_ctx *c, struct vmon_text *h)
{
	(void)c;
	H->append(h, "gpus: %u\n", ngpu);
}

static void gpu_finish(struct vmon_ctx *c)
{
	(void)c;
	if (nv.dl) {
		nv.shutdown();
		dlclose(nv.dl);
		nv.dl = NULL;
	}
}

static const struct vmon_module gpu = {
	.api_version = VMON_API_VERSION,
	.name = "gpu",
	.init = gpu_init,
	.get_data = gpu_get_data,
	.analyze = gpu_analyze,
	.update_header = gpu_update_header,
	.print_brief = gpu_brief,
	.print_verbose = gpu_verbose,
	.print_plot = gpu_plot,
	.print_export = gpu_export,
	.finish = gpu_finish,
};

const struct vmon_module *veles_monitor_module(void)
{
	return &gpu;
}
