/*
 * Invariants every loaded policy holds, checked by the policy harnesses.
 */
#ifndef GFS_FUZZ_POLICY_H
#define GFS_FUZZ_POLICY_H

#include "policy/policy.h"

/* fuzz_check_policy() - effective rights are mode ∩ trust ∩ worker
   chain, a read-only zone has no right that changes anything, and every
   path kept is absolute and normalised. Aborts when one does not hold. */
void fuzz_check_policy(const struct policy *p);

/* fuzz_check_ceiling() - @child (the policy after more workers) has no
   right, approval or visibility its @parent lacks. */
void fuzz_check_ceiling(const struct policy *parent,
			const struct policy *child);

/* fuzz_load() - policy_load() of @cfg and @workers, then
   policy_resolve(), as `golemfs check` does. A failure must say why and
   be one of the errors the loader documents (aborts otherwise).
   Return: the policy, or NULL when the input was refused. */
struct policy *fuzz_load(const char *cfg, const char *const *workers);

/* The config every policy harness but fuzz_config reads (a zone of each
   kind, ro and rw, ask and blocked approvals, suffixes, a size limit, a
   custom trust table, a zone inside another), made in fuzz_dir() with
   its directories. Return: the config file's path (static). */
const char *fuzz_policy_setup(void);

#endif
