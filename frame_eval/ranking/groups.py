"""trec_eval's measure groups: ``all_trec``, ``official`` and ``set``, as measure names.

Each group stands for the measures trec_eval 10.0 prints for it, in its
order (``runid`` and ``relstring`` aside, which are not measures).
``all_trec`` is every measure of a run with standard qrels; ``official``
the ones TREC reports; ``set`` the measures of the retrieved set.
"""

from __future__ import annotations

from frame_eval.registry import register_group

_LEVELS = ",".join(f"{x / 10:.1f}" for x in range(11))  # 0.0,0.1,...,1.0
_CUTS = "5,10,15,20,30,100,200,500,1000"

COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret")
SET = (*COUNTS, "utility", "set_P", "set_relative_P", "set_recall", "set_map", "set_F")
OFFICIAL = (
    *COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", f"iprec_at_recall_{_LEVELS}", f"P.{_CUTS}",
)
ALL_TREC = (
    *COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", f"iprec_at_recall_{_LEVELS}", f"P.{_CUTS}",
    f"recall.{_CUTS}", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg",
    "ndcg_rel", "Rndcg", f"ndcg_cut.{_CUTS}", f"map_cut.{_CUTS}", f"relative_P.{_CUTS}", "success.1,5,10",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid",
    "unj.5,10,20",
)

register_group("ranking", "all_trec", ALL_TREC)
register_group("ranking", "official", OFFICIAL)
register_group("ranking", "set", SET)
