/*
 * C yardstick for the speed goals of issues 2-4: a tight single-spin
 * Metropolis sweep (systematic order) on
 *   - ferro2d: 60x60 ferromagnetic torus, J=1, h=0, beta = 1/2.27
 *   - spinglass3d: 9^3 +-1 spin glass torus, beta = 1 (couplings drawn here
 *     with this program's own fixed PRNG: same structure as the Go
 *     spinglass3d:L=9 instance, not the same couplings)
 * int8 spins, acceptance table indexed by s_i*f_i (f_i the local field),
 * xoshiro256** inline, 53-bit uniform compared with an integer threshold.
 *
 * Four variants per lattice, the fastest is reported as the yardstick:
 *   nb/wrap   neighbour indices precomputed in a table, or computed with
 *             wrap arithmetic in nested coordinate loops;
 *   branch    draw a random number only when dE > 0 (the textbook loop);
 *   nobranch  one draw per spin, branch-free accept (what the Go loop does).
 *
 * Time is CLOCK_PROCESS_CPUTIME_ID. Each variant is timed REPS times for
 * SELECT seconds of CPU; the fastest variant is then timed REPS times for
 * BUDGET seconds of CPU each and the median printed.
 *
 * Usage: metropolis [--budget S] [--select S] [--reps N]
 *        metropolis --fixed SWEEPS [--lattice 2d|3d] [--variant NAME]
 *          (fixed workload, no timing: for valgrind --tool=callgrind)
 * Build: gcc -O3 -march=native -o metropolis metropolis.c -lm
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- xoshiro256** ---- */
typedef struct { uint64_t s[4]; } rng_t;

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng_t *r) {
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

static void rng_seed(rng_t *r, uint64_t seed) { /* splitmix64 */
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

static double cpu_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- lattice ---- */
#define KMAX 6 /* max |f| */
typedef struct {
	const char *name;
	int dim, L, N, z;
	double beta;
	int8_t *s;
	int32_t *nb;     /* N*z neighbour indices */
	int8_t *J;       /* N*z couplings, matching nb */
	int8_t *Jd;      /* N*dim couplings to the +d neighbour (wrap variants) */
	uint64_t thr[2 * KMAX + 1]; /* index s*f + KMAX: accept iff u53 < thr */
	rng_t r;
	long long acc, upd;
} lat_t;

static void lat_init(lat_t *g, const char *name, int dim, int L, double beta, int glass) {
	memset(g, 0, sizeof *g);
	g->name = name, g->dim = dim, g->L = L, g->beta = beta;
	g->N = dim == 2 ? L * L : L * L * L;
	g->z = 2 * dim;
	g->s = malloc(g->N);
	g->nb = malloc(sizeof(int32_t) * g->N * g->z);
	g->J = malloc(g->N * g->z);
	g->Jd = malloc(g->N * dim);
	rng_t cr;
	rng_seed(&cr, 12345);
	for (int i = 0; i < g->N * dim; i++)
		g->Jd[i] = glass ? ((rng_next(&cr) >> 63) ? 1 : -1) : 1;
	int N = g->N;
	for (int i = 0; i < N; i++) {
		int c[3] = {i % L, (i / L) % L, i / (L * L)};
		int stride = 1;
		for (int d = 0; d < dim; d++, stride *= L) {
			int up = c[d] == L - 1 ? i - (L - 1) * stride : i + stride;
			int dn = c[d] == 0 ? i + (L - 1) * stride : i - stride;
			g->nb[i * g->z + 2 * d] = up;
			g->J[i * g->z + 2 * d] = g->Jd[i * dim + d];
			g->nb[i * g->z + 2 * d + 1] = dn;
			g->J[i * g->z + 2 * d + 1] = g->Jd[dn * dim + d];
		}
	}
	for (int sf = -KMAX; sf <= KMAX; sf++) {
		double p = sf <= 0 ? 1.0 : exp(-2.0 * beta * sf);
		g->thr[sf + KMAX] = sf <= 0 ? (1ULL << 53) : (uint64_t)(p * 9007199254740992.0);
	}
	rng_seed(&g->r, 777);
	for (int i = 0; i < N; i++) g->s[i] = (rng_next(&g->r) >> 63) ? 1 : -1;
}

static double energy(const lat_t *g) {
	long long e = 0;
	for (int i = 0; i < g->N; i++)
		for (int k = 0; k < g->z; k += 2) /* +d bonds only */
			e -= g->J[i * g->z + k] * g->s[i] * g->s[g->nb[i * g->z + k]];
	return (double)e / g->N;
}

/* The accept step, shared by all variants. BRANCH: textbook. */
#define ACCEPT_BRANCH(i, f)                                        \
	do {                                                           \
		int sf = s[i] * (f);                                       \
		if (sf <= 0 || (rng_next(&r) >> 11) < thr[sf + KMAX]) {    \
			s[i] = -s[i];                                          \
			acc++;                                                 \
		}                                                          \
	} while (0)
#define ACCEPT_NOBRANCH(i, f)                                                      \
	do {                                                                           \
		int sf = s[i] * (f);                                                       \
		int64_t d = (int64_t)(rng_next(&r) >> 11) - (int64_t)thr[sf + KMAX];      \
		int64_t a = -(d >> 63); /* 1 iff u < thr */                                \
		s[i] = (int8_t)(s[i] * (1 - 2 * a));                                       \
		acc += a;                                                                  \
	} while (0)

/* Each sweep function runs n sweeps. The state is copied to locals so the
 * compiler keeps it in registers. */
#define SWEEP_NB(fname, ACCEPT)                                               \
	static void fname(lat_t *g, long n) {                                     \
		int8_t *restrict s = g->s;                                            \
		const int32_t *restrict nb = g->nb;                                   \
		const int8_t *restrict J = g->J;                                      \
		const uint64_t *thr = g->thr;                                         \
		rng_t r = g->r;                                                       \
		long long acc = 0;                                                    \
		const int N = g->N, z = g->z;                                         \
		for (long t = 0; t < n; t++) {                                        \
			if (z == 4) {                                                     \
				for (int i = 0; i < N; i++) {                                 \
					const int32_t *q = nb + 4 * i;                            \
					int f = s[q[0]] + s[q[1]] + s[q[2]] + s[q[3]];            \
					ACCEPT(i, f);                                             \
				}                                                             \
			} else {                                                          \
				for (int i = 0; i < N; i++) {                                 \
					const int32_t *q = nb + 6 * i;                            \
					const int8_t *w = J + 6 * i;                              \
					int f = w[0] * s[q[0]] + w[1] * s[q[1]] + w[2] * s[q[2]] + \
					        w[3] * s[q[3]] + w[4] * s[q[4]] + w[5] * s[q[5]];  \
					ACCEPT(i, f);                                             \
				}                                                             \
			}                                                                 \
		}                                                                     \
		g->r = r;                                                             \
		g->acc += acc;                                                        \
		g->upd += (long long)n * N;                                           \
	}
SWEEP_NB(sweep_nb_branch, ACCEPT_BRANCH)
SWEEP_NB(sweep_nb_nobranch, ACCEPT_NOBRANCH)

#define SWEEP_WRAP(fname, ACCEPT)                                                      \
	static void fname(lat_t *g, long n) {                                              \
		int8_t *restrict s = g->s;                                                     \
		const int8_t *restrict Jd = g->Jd;                                             \
		const uint64_t *thr = g->thr;                                                  \
		rng_t r = g->r;                                                                \
		long long acc = 0;                                                             \
		const int L = g->L, N = g->N;                                                  \
		for (long t = 0; t < n; t++) {                                                 \
			if (g->dim == 2) {                                                         \
				for (int y = 0; y < L; y++) {                                          \
					int row = y * L;                                                   \
					int up = (y == L - 1 ? 0 : y + 1) * L;                             \
					int dn = (y == 0 ? L - 1 : y - 1) * L;                             \
					for (int x = 0; x < L; x++) {                                      \
						int xp = x == L - 1 ? 0 : x + 1, xm = x == 0 ? L - 1 : x - 1;  \
						int i = row + x;                                               \
						int f = s[row + xp] + s[row + xm] + s[up + x] + s[dn + x];     \
						ACCEPT(i, f);                                                  \
					}                                                                  \
				}                                                                      \
			} else {                                                                   \
				const int LL = L * L;                                                  \
				for (int zc = 0; zc < L; zc++) {                                       \
					int pl = zc * LL;                                                  \
					int zu = (zc == L - 1 ? 0 : zc + 1) * LL;                          \
					int zd = (zc == 0 ? L - 1 : zc - 1) * LL;                          \
					for (int y = 0; y < L; y++) {                                      \
						int row = y * L;                                               \
						int up = (y == L - 1 ? 0 : y + 1) * L;                         \
						int dn = (y == 0 ? L - 1 : y - 1) * L;                         \
						for (int x = 0; x < L; x++) {                                  \
							int xp = x == L - 1 ? 0 : x + 1;                           \
							int xm = x == 0 ? L - 1 : x - 1;                           \
							int i = pl + row + x;                                      \
							int jxm = pl + row + xm, jym = pl + dn + x, jzm = zd + row + x; \
							int f = Jd[3 * i] * s[pl + row + xp] + Jd[3 * jxm] * s[jxm] + \
							        Jd[3 * i + 1] * s[pl + up + x] + Jd[3 * jym + 1] * s[jym] + \
							        Jd[3 * i + 2] * s[zu + row + x] + Jd[3 * jzm + 2] * s[jzm]; \
							ACCEPT(i, f);                                              \
						}                                                              \
					}                                                                  \
				}                                                                      \
			}                                                                          \
		}                                                                              \
		g->r = r;                                                                      \
		g->acc += acc;                                                                 \
		g->upd += (long long)n * N;                                                    \
	}
SWEEP_WRAP(sweep_wrap_branch, ACCEPT_BRANCH)
SWEEP_WRAP(sweep_wrap_nobranch, ACCEPT_NOBRANCH)

typedef void (*sweep_fn)(lat_t *, long);
static const struct { const char *name; sweep_fn fn; } variants[] = {
	{"nb/branch", sweep_nb_branch},
	{"nb/nobranch", sweep_nb_nobranch},
	{"wrap/branch", sweep_wrap_branch},
	{"wrap/nobranch", sweep_wrap_nobranch},
};
#define NV (int)(sizeof variants / sizeof variants[0])

/* ns per spin update over at least budget seconds of CPU. */
static double timeit(lat_t *g, sweep_fn fn, double budget) {
	long batch = 1 + 200000 / g->N, sweeps = 0;
	double t0 = cpu_now(), t;
	do {
		fn(g, batch);
		sweeps += batch;
	} while ((t = cpu_now() - t0) < budget);
	return t * 1e9 / ((double)sweeps * g->N);
}

static int cmpd(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_time(lat_t *g, sweep_fn fn, double budget, int reps) {
	double v[64];
	for (int k = 0; k < reps; k++) v[k] = timeit(g, fn, budget);
	qsort(v, reps, sizeof v[0], cmpd);
	return reps % 2 ? v[reps / 2] : 0.5 * (v[reps / 2 - 1] + v[reps / 2]);
}

int main(int argc, char **argv) {
	double budget = 1.0, sel = 0.2;
	int reps = 5;
	long fixed = 0;
	const char *only = NULL, *vname = "nb/nobranch";
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--budget") && a + 1 < argc) budget = atof(argv[++a]);
		else if (!strcmp(argv[a], "--select") && a + 1 < argc) sel = atof(argv[++a]);
		else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--fixed") && a + 1 < argc) fixed = atol(argv[++a]);
		else if (!strcmp(argv[a], "--lattice") && a + 1 < argc) only = argv[++a];
		else if (!strcmp(argv[a], "--variant") && a + 1 < argc) vname = argv[++a];
		else {
			fprintf(stderr, "usage: %s [--budget S] [--select S] [--reps N] | --fixed SWEEPS [--lattice 2d|3d] [--variant NAME]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > 64 || budget <= 0) {
		fprintf(stderr, "bad --reps or --budget\n");
		return 2;
	}
	lat_t lats[2];
	lat_init(&lats[0], "ferro2d:L=60", 2, 60, 1 / 2.27, 0);
	lat_init(&lats[1], "spinglass3d:L=9", 3, 9, 1.0, 1);

	if (fixed > 0) { /* callgrind workload: one lattice, one variant, fixed sweeps */
		int v = -1;
		for (int k = 0; k < NV; k++)
			if (!strcmp(variants[k].name, vname)) v = k;
		if (v < 0) { fprintf(stderr, "unknown variant %s\n", vname); return 2; }
		lat_t *g = &lats[only && !strcmp(only, "3d") ? 1 : 0];
		variants[v].fn(g, fixed);
		printf("%s %s sweeps=%ld updates=%lld acc=%.4f E/N=%.4f\n", g->name, vname, fixed,
		       g->upd, (double)g->acc / g->upd, energy(g));
		return 0;
	}

	printf("# C Metropolis yardstick: gcc -O3 -march=native, xoshiro256**, int8 spins, CPU time\n");
	for (int li = 0; li < 2; li++) {
		lat_t *g = &lats[li];
		sweep_nb_branch(g, 2000); /* equilibrate */
		int best = 0;
		double bt = 1e300;
		for (int v = 0; v < NV; v++) {
			double t = median_time(g, variants[v].fn, sel, reps);
			printf("#   %-16s %-14s %7.3f ns/update (select: median of %d x %.2fs)\n", g->name, variants[v].name, t, reps, sel);
			if (t < bt) bt = t, best = v;
		}
		g->acc = g->upd = 0;
		double t = median_time(g, variants[best].fn, budget, reps);
		printf("C %-16s beta=%-7.4f %-14s %7.3f ns/update  acc=%.4f  E/N=%.4f  (median of %d x %.1fs CPU)\n",
		       g->name, g->beta, variants[best].name, t, (double)g->acc / g->upd, energy(g), reps, budget);
		fflush(stdout);
	}
	return 0;
}
