/* budget.c -- see budget.h. */
#include <string.h>

#include "models/budget.h"

const struct cfg_setting budget_settings[] = {
	{ "budget.cost_usd", CFG_FLOAT, "USD", 0, 1e15, "0", NULL,
	  "cost budget of the run (0: none)" },
	{ "budget.carbon_kg", CFG_FLOAT, "kgCO2e", 0, 1e15, "0", NULL,
	  "operational carbon budget of the run (0: none)" },
	{ "budget.alert_at", CFG_FLOAT_LIST, "", 1e-6, 100, "[0.5, 0.8, 1.0]", NULL,
	  "fractions of a budget at which the projected total raises an alert" },
	{ "budget.stop", CFG_BOOL, "", 0, 0, "false", NULL,
	  "end the run when a projected total reaches its budget" },
	CFG_END
};

void budget_from_scenario(const struct scenario *sc, struct budget *b)
{
	size_t n = sc_list_len(sc, "budget.alert_at");

	memset(b, 0, sizeof *b);
	b->limit[BUDGET_COST] = sc_float(sc, "budget.cost_usd");
	b->limit[BUDGET_CARBON] = sc_float(sc, "budget.carbon_kg");
	for (size_t i = 0; i < n && i < BUDGET_LEVELS_MAX; i++)
		b->level[b->levels++] = sc_list_float(sc, i, "budget.alert_at");
	b->stop = sc_bool(sc, "budget.stop");
}

int budget_check(struct budget *b, int64_t now_ns, const double projected[BUDGET_KINDS],
		 struct budget_alert *out)
{
	int n = 0;

	for (int k = 0; k < BUDGET_KINDS; k++) {
		if (b->limit[k] <= 0)
			continue;
		for (int i = 0; i < b->levels; i++) {
			if (b->fired[k][i] || projected[k] < b->level[i] * b->limit[k])
				continue;
			b->fired[k][i] = true;
			out[n++] = (struct budget_alert){ now_ns, k, b->level[i], projected[k] };
		}
		if (b->stop && projected[k] >= b->limit[k])
			b->stop_requested = true;
	}
	return n;
}

const char *budget_kind_name(int kind)
{
	return kind == BUDGET_COST ? "budget_cost" : "budget_carbon";
}
