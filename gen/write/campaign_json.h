/* campaign_json.h: the kunai.json writer. */
#ifndef KUNAI_CAMPAIGN_JSON_H
#define KUNAI_CAMPAIGN_JSON_H

#include <stdbool.h>

struct buf;
struct campaign;
struct runlist;

/* Appends kunai.json (the resolved campaign and its runs) to out.
 * Returns false (after reporting) on failure. */
bool json_campaign(const struct campaign *c, const struct runlist *rl, struct buf *out);

#endif
