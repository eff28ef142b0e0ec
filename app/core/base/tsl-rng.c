/* tsl-rng.c: seeded random numbers (xoshiro256**) and the mix64 hash
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-rng"

#include "tsl-rng.h"

void
tsl_rng_init (TslRng  *rng,
              guint64  seed,
              guint64  stream)
{
  guint64 sm;

  g_return_if_fail (rng != NULL);

  /* Each (seed, stream) pair starts SplitMix64 at an unrelated point, and
   * SplitMix64 never yields an all-zero xoshiro state from four outputs. */
  sm = tsl_mix64 (seed, stream);
  for (guint i = 0; i < 4; i++)
    rng->s[i] = tsl_splitmix64_next (&sm);
}

void
tsl_rng_jump (TslRng *rng)
{
  static const guint64 jump[] = {
    G_GUINT64_CONSTANT (0x180EC6D33CFD0ABA), G_GUINT64_CONSTANT (0xD5A61266F0C9392C),
    G_GUINT64_CONSTANT (0xA9582618E03FC9AA), G_GUINT64_CONSTANT (0x39ABDC4529B1661C),
  };
  guint64 s[4] = { 0, 0, 0, 0 };

  g_return_if_fail (rng != NULL);

  for (guint i = 0; i < G_N_ELEMENTS (jump); i++)
    {
      for (guint b = 0; b < 64; b++)
        {
          if (jump[i] & (G_GUINT64_CONSTANT (1) << b))
            {
              s[0] ^= rng->s[0];
              s[1] ^= rng->s[1];
              s[2] ^= rng->s[2];
              s[3] ^= rng->s[3];
            }
          tsl_rng_next (rng);
        }
    }

  for (guint i = 0; i < 4; i++)
    rng->s[i] = s[i];
}
