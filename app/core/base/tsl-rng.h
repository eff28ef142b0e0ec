/* tsl-rng.h: seeded random numbers (xoshiro256**) and the mix64 hash
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TslRng is a plain struct so it can live on the stack or inside a worker's
 * state; the hot functions are inline. Streams: tsl_rng_init() with the same
 * seed and different stream numbers gives generators whose states come from
 * unrelated SplitMix64 sequences, so one per thread or per series is safe.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 s[4];
} TslRng;

#define TSL_GOLDEN_GAMMA G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)

/* Stafford's variant 13, the SplitMix64 output function: a bijection on
 * 64 bits with full avalanche. */
static inline guint64
tsl_fmix64 (guint64 z)
{
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static inline guint64
tsl_splitmix64_next (guint64 *state)
{
  *state += TSL_GOLDEN_GAMMA;
  return tsl_fmix64 (*state);
}

/* tsl_mix64 (seed, key) == tsl_mix64_keyed (tsl_mix64_seed (seed), key), so
 * a loop over keys can hash the seed once. For a fixed seed it is a bijection
 * of key: distinct keys never share a priority. */
static inline guint64
tsl_mix64_seed (guint64 seed)
{
  return tsl_fmix64 (seed ^ G_GUINT64_CONSTANT (0x6A09E667F3BCC909));
}

static inline guint64
tsl_mix64_keyed (guint64 seed_hash,
                 guint64 key)
{
  return tsl_fmix64 (key * TSL_GOLDEN_GAMMA + seed_hash);
}

static inline guint64
tsl_mix64 (guint64 seed,
           guint64 key)
{
  return tsl_mix64_keyed (tsl_mix64_seed (seed), key);
}

static inline guint64
tsl_rotl64 (guint64 x,
            int     k)
{
  return (x << k) | (x >> (64 - k));
}

void              tsl_rng_init                  (TslRng        *rng,
                                                 guint64        seed,
                                                 guint64        stream);
/* Advances by 2^128 steps: 2^128 non-overlapping subsequences. */
void              tsl_rng_jump                  (TslRng        *rng);

static inline guint64
tsl_rng_next (TslRng *rng)
{
  guint64 *s = rng->s;
  guint64 result = tsl_rotl64 (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = tsl_rotl64 (s[3], 45);

  return result;
}

/* Uniform in [0, bound) by Lemire's multiply-shift; the division only runs
 * when the low product falls in the rare biased zone. bound 0 returns 0. */
static inline guint64
tsl_rng_bounded (TslRng  *rng,
                 guint64  bound)
{
  unsigned __int128 m = (unsigned __int128) tsl_rng_next (rng) * bound;
  guint64 low = (guint64) m;

  if (G_UNLIKELY (low < bound))
    {
      guint64 threshold = -bound % bound;

      while (low < threshold)
        {
          m = (unsigned __int128) tsl_rng_next (rng) * bound;
          low = (guint64) m;
        }
    }

  return (guint64) (m >> 64);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double
tsl_rng_double (TslRng *rng)
{
  return (tsl_rng_next (rng) >> 11) * 0x1.0p-53;
}

G_END_DECLS
