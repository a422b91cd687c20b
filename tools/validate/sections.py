"""tools/validate/sections.py - each study's generated section of
docs/validation.md kept on its own, so that `validate.py --only STUDY`
regenerates that study's section from its runs and keeps the others as they
were last generated (their runs need not be on the machine: the full pass
takes core-hours).

docs/data/validation/STUDY.json holds what the page shows of a study: the
pass, its settings, its line of "What produced this page" and its generated
blocks; its CSVs are copied beside it (up to CSV_LIMIT bytes each). A study
with neither runs nor a saved section is shown as not run. Standard library
only."""
import datetime
import json
import os
import shutil

import report

CSVS = {  # study -> the CSVs validate.py writes for it (its figures' data)
    "column": ["column_runs.csv", "column_required.csv"],
    "pile": ["pile_height.csv", "pile_reference.csv"],
    "probe": ["pile_probe.csv"],
    "creep": ["pile_creep.csv"],
    "drum": ["drum.csv"],
    "triaxial": ["triaxial.csv", "triaxial_curve.csv"],
    "shapepile": ["shapepile.csv"],
}
CSV_LIMIT = 512 * 1024  # larger CSVs stay in the run folder only


def folder(docs):
    return os.path.join(docs, "data", "validation")


def path(docs, study):
    return os.path.join(folder(docs), study + ".json")


def make(study, res, cfg, label, work, meta):
    """The section of a study generated now from its runs."""
    return {"study": study, "pass": label, "settings": cfg,
            "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "provenance": report.provenance_line(study, res, cfg, meta),
            "blocks": report.study_blocks(study, res, cfg, label), "work": work, "csv": []}


def save(docs, section, work):
    """Writes the section and copies its study's CSVs from work."""
    os.makedirs(folder(docs), exist_ok=True)
    section = dict(section)
    if work:
        section["csv"] = []
        for name in CSVS[section["study"]]:
            src = os.path.join(work, name)
            if os.path.exists(src) and os.path.getsize(src) <= CSV_LIMIT:
                shutil.copyfile(src, os.path.join(folder(docs), name))
                section["csv"].append(name)
    with open(path(docs, section["study"]), "w", encoding="utf-8") as f:
        json.dump(section, f, indent=1)
        f.write("\n")


def load(docs, study):
    p = path(docs, study)
    if not os.path.exists(p):
        return None
    with open(p, encoding="utf-8") as f:
        return json.load(f)

