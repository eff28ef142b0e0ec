/* tsl-window-private.h: shared by tsl-window.c and tsl-window-actions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-document-loader.h"
#include "tsl-snapshot.h"
#include "tsl-call-tree.h"
#include "tsl-changes-list.h"
#include "tsl-compare-panel.h"
#include "tsl-flame-view.h"
#include "tsl-overview.h"
#include "tsl-timeline-view.h"
#include "tsl-window.h"

G_BEGIN_DECLS

typedef struct _TslWindowChanges TslWindowChanges;

struct _TslWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  AdwViewSwitcherTitle *window_title;
  AdwViewStack         *view_stack;
  TslFlameView         *flame_view;
  TslCallTree          *call_tree;
  GtkDropDown          *flame_mode_dropdown;
  GtkToggleButton      *merge_threads_button;
  GtkToggleButton      *icicle_button;
  GtkToggleButton      *cpu_button;
  GtkStack             *stack;
  GtkRevealer          *progress_revealer;
  GtkProgressBar       *progress_bar;
  GtkLabel             *progress_label;
  GtkSearchBar         *search_bar;
  GtkSearchEntry       *search_entry;
  GtkLabel             *search_count_label;
  TslTimelineView      *timeline;
  GtkScrollbar         *timeline_scrollbar;
  GtkMenuButton        *warnings_button;
  GtkListBox           *warnings_list;
  GtkToggleButton      *select_b_button;
  GtkToggleButton      *follow_button;
  GtkToggleButton      *search_button;
  GtkMenuButton        *ranges_button;
  TslComparePanel      *compare_panel;
  GtkPaned             *paned;            /* timeline above the compare panel */
  GtkEntry             *a_start_entry;
  GtkEntry             *a_end_entry;
  GtkEntry             *b_start_entry;
  GtkEntry             *b_end_entry;
  GtkLabel             *status_label;
  GtkLabel             *file_label;         /* the open file(s), in the header */
  GtkRevealer          *slice_revealer;
  GtkLabel             *slice_label;
  GMenu                *recent_section;
  TslOverview          *overview;
  GtkMenuButton        *changes_button;     /* the Changes popover */
  TslChangesList       *changes_list;

  /* Owned references */
  GFile                *file;
  TslDocumentLoader    *loader;
  GCancellable         *cancellable;
  GtkFileChooserNative *chooser;
  GBinding             *progress_binding;  /* loader:message → progress_label:label */
  guint                 detail_source;
  TslDocumentLoader    *detail_loader;
  GCancellable         *detail_cancellable;
  GCancellable         *slice_cancellable;  /* reading a slice's arguments */
  GArray               *search_matches;     /* TslSearchMatch, by start */
  GArray               *search_tracks;      /* what each match's `track` stands for */
  guint64               search_found;       /* calls found, kept or not */
  gboolean              search_whole;       /* the matches are every call of the trace */
  GCancellable         *search_cancellable; /* the whole-file count under way */
  int                   search_index;       /* the current match, -1 for none */
  gboolean              no_tracks;          /* loaded, and nothing on the timeline */
  guint64               first_view_outside; /* events the first view leaves out, 0 once all is shown */
  GPtrArray            *parts;              /* TslWindowPart *: merged files, else NULL */
  TslWindowChanges     *changes;            /* tsl-window-changes.c */
};

typedef struct _TslWindowPart TslWindowPart;

void              _tsl_window_class_actions_init (TslWindowClass *klass);
void              _tsl_window_actions_init       (TslWindow      *self);
void              _tsl_window_update_actions     (TslWindow      *self);
void              _tsl_window_update_recent      (TslWindow      *self);
void              _tsl_window_export_to          (TslWindow      *self,
                                                  GFile          *file,
                                                  gboolean        table);
void              _tsl_window_export_action      (GtkWidget      *widget,
                                                  const char     *action_name,
                                                  GVariant       *param);
/* Ends an export task (boolean result): the error, or a toast that opens
 * `file`. */
void              _tsl_window_export_done        (TslWindow               *self,
                                                  GFile                   *file,
                                                  GAsyncResult            *result);
/* A save dialog with one filter per type (tsl-window-export.c); the name
 * suggested is the open file's without its extension, then `suffix`. */
typedef struct {
  const char *name;      /* N_() */
  const char *pattern;
  const char *ext;       /* added when the name typed has none */
  gboolean    table;     /* export: the compare table, not the samples */
} TslWindowSaveType;

void              _tsl_window_save_dialog        (TslWindow               *self,
                                                  const char              *title,
                                                  const char              *suffix,
                                                  const TslWindowSaveType *types,
                                                  guint                    n_types,
                                                  GCallback                response);
/* (transfer full): the chosen file, with the filter's extension when the
 * name typed has none `has_extension` accepts. */
GFile            *_tsl_window_chooser_get_file   (GtkFileChooser          *chooser,
                                                  gboolean               (*has_extension) (const char *name));
/* File ▸ Export Report… (tsl-window-report.c): the current ranges' report. */
void              _tsl_window_report_to          (TslWindow      *self,
                                                  GFile          *file);
void              _tsl_window_report_action      (GtkWidget      *widget,
                                                  const char     *action_name,
                                                  GVariant       *param);
/* A fixed seed: the same file always shows the same samples. */
#define TSL_WINDOW_SEED G_GUINT64_CONSTANT (0x5EED)

/* Exact budgets of the whole-file read (the zoomed-in re-read uses
 * TSL_EXACT_PER_TRACK and TSL_EXACT_TOTAL): 6.4 MB at most. */
#define TSL_WINDOW_EXACT_PER_TRACK 20000
#define TSL_WINDOW_EXACT_TOTAL     200000

void              _tsl_window_update_ranges      (TslWindow      *self);
void              _tsl_window_update_status      (TslWindow      *self);
/* The warnings button: the open file's, or every merged file's. */
void              _tsl_window_update_warnings    (TslWindow      *self);
void              _tsl_window_show_slice         (TslWindow      *self,
                                                  TslSnapshot    *snapshot,
                                                  guint           track,
                                                  guint           slice);
void              _tsl_window_slice_class_init   (GtkWidgetClass *widget_class);
void              _tsl_window_cancel_slice_details (TslWindow    *self);
void              _tsl_window_search_class_init  (GtkWidgetClass *widget_class);
void              _tsl_window_search_init        (TslWindow      *self);
void              _tsl_window_search_clear       (TslWindow      *self);
/* The search text changed, or the snapshot it searched did. */
void              _tsl_window_search_update      (TslWindow      *self);
/* The snapshot shown changed: redone only when it was all there was. */
void              _tsl_window_search_snapshot_changed (TslWindow *self);
void              _tsl_window_search_next        (TslWindow      *self);
void              _tsl_window_search_previous    (TslWindow      *self);
void              _tsl_window_queue_detail       (TslWindow      *self);
void              _tsl_window_flame_init         (TslWindow      *self,
                                                  GSettings      *settings);
void              _tsl_window_flame_mode_changed (TslWindow      *self);
void              _tsl_window_flame_update_snapshot (TslWindow   *self);
void              _tsl_window_flame_options_toggled (TslWindow   *self);
void              _tsl_window_flame_set_ranges   (TslWindow      *self,
                                                  gboolean        has_a,
                                                  gint64          a0,
                                                  gint64          a1,
                                                  gboolean        has_b,
                                                  gint64          b0,
                                                  gint64          b1);
void              _tsl_window_cancel_detail      (TslWindow      *self);
void              _tsl_window_range_entry_activate (TslWindow    *self,
                                                  GtkEntry       *entry);
void              _tsl_window_clear_ranges_action (GtkWidget     *widget,
                                                  const char     *action_name,
                                                  GVariant       *param);
/* Ctrl+Z: the ranges Escape (or Clear Ranges) removed come back. */
void              _tsl_window_restore_ranges_action (GtkWidget   *widget,
                                                  const char     *action_name,
                                                  GVariant       *param);
/* Merged files (tsl-window-merge.c). */
void              _tsl_window_part_free          (gpointer        data);
TslTrace         *_tsl_window_new_trace          (TslWindow      *self);
gboolean          _tsl_window_merge_is_loading   (TslWindow      *self);
/* Stops reading every merged file (what was read stays). */
void              _tsl_window_merge_stop         (TslWindow      *self);
/* (transfer full): the parts' traces copied and merged; hands the
 * positions to the compare panel once every file is read. */
TslSnapshot      *_tsl_window_merge_snapshot     (TslWindow      *self);
void              _tsl_window_merge_refresh      (TslWindow      *self);
/* Calls `add` for each merged file's trace, with its name. */
typedef void    (*TslWindowAddWarnings)          (TslTrace       *trace,
                                                  const char     *prefix,
                                                  GPtrArray      *messages,
                                                  GArray         *counts);
void              _tsl_window_merge_add_warnings (TslWindow      *self,
                                                  TslWindowAddWarnings add,
                                                  GPtrArray      *messages,
                                                  GArray         *counts);
void              _tsl_window_merge_loaded       (TslWindow      *self);
/* Merged file i's file, trace (NULL before its load starts) and name,
 * borrowed; FALSE when not merged or past the last. */
gboolean          _tsl_window_merge_get_part     (TslWindow      *self,
                                                  guint           i,
                                                  GFile         **file,
                                                  TslTrace      **trace,
                                                  const char    **name);
void              _tsl_window_merge_part_done    (TslWindow         *self,
                                                  TslDocumentLoader *loader);
void              _tsl_window_merge_group_moved  (TslWindow       *self,
                                                  gint64           pid,
                                                  gint64           delta_ns,
                                                  TslTimelineView *view);
void              _tsl_window_offsets_action     (GtkWidget      *widget,
                                                  const char     *action_name,
                                                  GVariant       *param);
/* Change points (tsl-window-changes.c): found once a file is read, or
 * each merged file once all are. */
void              _tsl_window_changes_class_init (GtkWidgetClass *widget_class);
void              _tsl_window_changes_init       (TslWindow      *self);
void              _tsl_window_changes_dispose    (TslWindow      *self);
void              _tsl_window_changes_start      (TslWindow      *self);
void              _tsl_window_changes_clear      (TslWindow      *self);
/* Merged files moved: the marks follow their files. */
void              _tsl_window_changes_relayout   (TslWindow      *self);
/* Sets A and B either side of significant change `index` (as listed). */
void              _tsl_window_changes_choose     (TslWindow      *self,
                                                  guint           index);
/* ] and [ step through the changes. */
gboolean          _tsl_window_changes_handle_key (TslWindow      *self,
                                                  guint           keyval,
                                                  GdkModifierType state);
/* (transfer none) (nullable) (element-type TslChangeRow): the significant
 * change points, as listed; for tests. */
GPtrArray        *_tsl_window_changes_get_rows   (TslWindow      *self);
/* The merged file (0 when not merged) listed change `index` is in. */
guint             _tsl_window_changes_get_file   (TslWindow      *self,
                                                  guint           index);
int               _tsl_window_changes_get_current (TslWindow     *self);
void              _tsl_window_show_error         (TslWindow      *self,
                                                  const char     *heading,
                                                  const char     *body);

G_END_DECLS
