#!/usr/bin/env python3
"""Checks the shape of GitHub Actions workflow files, beyond what yamllint sees.

Usage: check-workflows.py WORKFLOW.yml...

Each file needs `name`, `on` and at least one job; each job `runs-on` and a non-empty list of
steps, each step exactly one of `run` or `uses`; every `${{ matrix.X }}` a job uses must name
a key of its `strategy.matrix`. Prints `path: error: …` per problem and exits 1 when there is
any. Needs PyYAML; without it it prints a notice and exits 0, as check-spec-schema.py does.
"""
import re
import sys

try:
    import yaml
except ImportError:
    print("check-workflows: skipped, the Python module yaml (PyYAML) is missing")
    sys.exit(0)

MATRIX_REFERENCE = re.compile(r"\$\{\{\s*matrix\.([A-Za-z0-9_-]+)")


def matrix_keys(job):
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    if not isinstance(matrix, dict):
        return None  # a `${{ fromJSON(...) }}` matrix: its keys are not known here
    keys = {key for key in matrix if key not in ("include", "exclude")}
    for entry in matrix.get("include") or []:
        keys.update(entry)
    return keys


def check(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    workflow = yaml.safe_load(text)
    problems = []
    if not isinstance(workflow, dict):
        return [f"{path}: error: not a mapping"]
    # YAML 1.1 reads the key `on` as true.
    if "on" not in workflow and True not in workflow:
        problems.append(f"{path}: error: no `on:` (the events that start the workflow)")
    if not workflow.get("name"):
        problems.append(f"{path}: error: no `name:`")
    jobs = workflow.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        return problems + [f"{path}: error: no jobs"]
    for job_id, job in jobs.items():
        where = f"{path}: job {job_id}"
        if not isinstance(job, dict):
            problems.append(f"{where}: error: not a mapping")
            continue
        if "runs-on" not in job:
            problems.append(f"{where}: error: no `runs-on:`")
        steps = job.get("steps")
        if not isinstance(steps, list) or not steps:
            problems.append(f"{where}: error: no steps")
            steps = []
        for index, step in enumerate(steps, 1):
            if not isinstance(step, dict) or ("run" in step) == ("uses" in step):
                problems.append(f"{where}: step {index}: error: needs exactly one of `run:` or `uses:`")
        keys = matrix_keys(job)
        if keys is not None:
            for name in sorted(set(MATRIX_REFERENCE.findall(yaml.safe_dump(job)))):
                if name not in keys:
                    problems.append(f"{where}: error: `matrix.{name}` is used but the job's matrix has no such key")
    return problems


def main(paths):
    if not paths:
        print("check-workflows: no workflow files given", file=sys.stderr)
        return 1
    problems = [problem for path in paths for problem in check(path)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"check-workflows: {len(paths)} workflow file(s) have a name, triggers, and jobs with runs-on and steps")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
