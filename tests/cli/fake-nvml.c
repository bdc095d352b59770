/*
 * A stand-in for libnvidia-ml.so.1 with two GPUs of fixed readings, so the
 * gpu monitor module runs its whole path (dlopen, sampling, every output
 * and export) on machines without an NVIDIA driver. Only the functions the
 * module looks up, with NVML's argument layouts.
 */
struct fake_util {
	unsigned int gpu, memory;
};
struct fake_mem {
	unsigned long long total, free, used;
};

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d);
int nvmlDeviceGetUtilizationRates(void *d, struct fake_util *u);
int nvmlDeviceGetMemoryInfo(void *d, struct fake_mem *m);
int nvmlDeviceGetTemperature(void *d, int sensor, unsigned int *t);
int nvmlDeviceGetPowerUsage(void *d, unsigned int *mw);

static const char gpus[2];

int nvmlInit_v2(void)
{
	return 0;
}

int nvmlShutdown(void)
{
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	*n = 2;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d)
{
	if (i >= 2)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	*d = (void *)&gpus[i];
	return 0;
}

static unsigned int index_of(const void *d)
{
	return (unsigned int)((const char *)d - gpus);
}

int nvmlDeviceGetUtilizationRates(void *d, struct fake_util *u)
{
	u->gpu = 40 + index_of(d);
	u->memory = 20;
	return 0;
}

int nvmlDeviceGetMemoryInfo(void *d, struct fake_mem *m)
{
	m->total = 8ull << 30;
	m->used = (1024ull + index_of(d)) << 20;
	m->free = m->total - m->used;
	return 0;
}

int nvmlDeviceGetTemperature(void *d, int sensor, unsigned int *t)
{
	(void)sensor;
	*t = 55 + index_of(d);
	return 0;
}

int nvmlDeviceGetPowerUsage(void *d, unsigned int *mw)
{
	*mw = 75500 + 1000 * index_of(d);
	return 0;
}
