/* tsl-zstd-units.c: where a zstd stream's independently decoded units end
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-zstd-units"

#include "config.h"

#include "tsl-zstd-units.h"

enum {
  STAGE_FRAME,      /* magic, then a frame header or a skippable frame's size */
  STAGE_BLOCK,      /* a 3-byte block header, then its content */
  STAGE_CHECKSUM,   /* the frame's 4-byte content checksum */
  STAGE_UNKNOWN,    /* not zstd framing: zstd fails on it, the rest is one unit */
};

#define ZSTD_MAGIC          0xFD2FB528u
#define SKIPPABLE_MASK      0xFFFFFFF0u
#define SKIPPABLE_MAGIC     0x184D2A50u

static guint32
le32 (const guint8 *p)
{
  return p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

void
tsl_zstd_units_init (TslZstdUnits *self)
{
  *self = (TslZstdUnits) { .stage = STAGE_FRAME };
}

/* The unit's head is complete when this many bytes are in: 0 once sized. */
static guint
head_wanted (TslZstdUnits *self)
{
  switch (self->stage)
    {
    case STAGE_FRAME:
      if (self->n_head < 4)
        return 4;
      if ((le32 (self->head) & SKIPPABLE_MASK) == SKIPPABLE_MAGIC)
        return 8;
      return 5;
    case STAGE_BLOCK:
      return 3;
    case STAGE_CHECKSUM:
      return 4;
    default:
      return 0;
    }
}

/* The head is in: how many bytes of the unit follow it, and what comes next. */
static void
size_unit (TslZstdUnits *self)
{
  static const guint dict_id_bytes[4] = { 0, 1, 2, 4 };
  guint32 magic;
  guint8 fhd;
  guint32 header;
  guint block_type;
  guint32 block_size;

  switch (self->stage)
    {
    case STAGE_FRAME:
      magic = le32 (self->head);
      if ((magic & SKIPPABLE_MASK) == SKIPPABLE_MAGIC)
        {
          self->left = le32 (self->head + 4);
          self->stage = STAGE_FRAME;  /* after it, another frame */
          return;
        }
      if (magic != ZSTD_MAGIC)
        {
          self->left = G_MAXUINT64;
          self->stage = STAGE_UNKNOWN;
          return;
        }
      /* Frame_Header_Descriptor: content size flag, single segment,
       * checksum, dictionary id flag; then the window descriptor. */
      fhd = self->head[4];
      {
        gboolean single = (fhd >> 5) & 1;
        guint fcs_flag = fhd >> 6;
        guint fcs = fcs_flag == 0 ? (single ? 1 : 0) : 1u << fcs_flag;

        self->left = (single ? 0 : 1) + dict_id_bytes[fhd & 3] + fcs;
      }
      self->has_checksum = (fhd >> 2) & 1;
      self->stage = STAGE_BLOCK;
      return;
    case STAGE_BLOCK:
      header = self->head[0] | (guint32) self->head[1] << 8 | (guint32) self->head[2] << 16;
      block_type = (header >> 1) & 3;
      block_size = header >> 3;
      self->last_block = header & 1;
      /* Raw and compressed: the size; RLE: one byte; reserved: zstd fails. */
      self->left = block_type == 1 ? 1 : block_type == 3 ? 0 : block_size;
      if (self->last_block)
        self->stage = self->has_checksum ? STAGE_CHECKSUM : STAGE_FRAME;
      return;
    case STAGE_CHECKSUM:
      self->left = 0;
      self->stage = STAGE_FRAME;
      return;
    default:
      g_assert_not_reached ();
    }
}

gsize
tsl_zstd_units_take (TslZstdUnits *self,
                     const guint8 *data,
                     gsize         len)
{
  gsize taken = 0;

  g_return_val_if_fail (len > 0, 0);

  if (self->stage == STAGE_UNKNOWN)
    return len;

  /* Still sizing the unit: its head bytes belong to it, whatever follows. */
  while (self->left == 0 && taken < len)
    {
      guint wanted = head_wanted (self);

      if (self->n_head == 0 && taken > 0)
        return taken;  /* a unit ended and the next starts: not in this call */
      while (self->n_head < wanted && taken < len)
        self->head[self->n_head++] = data[taken++];
      if (self->n_head < wanted)
        return taken;
      if (head_wanted (self) > wanted)
        continue;  /* the magic said a skippable frame: 8 bytes of head */
      size_unit (self);
      self->n_head = 0;
      if (self->left == 0 || self->stage == STAGE_UNKNOWN)
        return taken;  /* a unit that is all head (checksum, empty block) */
      /* The next byte is the unit's body: the head's call may hold it. */
      break;
    }

  if (self->stage == STAGE_UNKNOWN)
    return len;

  {
    gsize body = MIN (len - taken, self->left);

    self->left -= body;
    return taken + body;
  }
}
