"""What a class's marking writes for people to read: each student's feedback (HTML and
plain text, with the files of the cases it shows) and the class summary. Pages come from
jinja2 templates with auto-escaping on, so no byte a student wrote reaches a page as
markup; a feedback page shows each case as its visibility says at the time it is
written, and nothing of a case it does not show."""

import base64
import os
import re
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from exactmark.classroom import same_output, sheet, visibility
from exactmark.classroom.visibility import NEVER_SHOWN as NEVER
from exactmark.classroom.sheet import Row
from exactmark.base.visible import CUT, END_OF_LINE, escaped
from exactmark.kit.assignment import COUNTS
from exactmark.kit.late import BANK
from exactmark.kit.written_cases import CASE_FILES
from exactmark.marking import overrides
from exactmark.marking.grouping import grouped
from exactmark.marking.student_cases import COUNT_NAMES, TO_MATCH
from exactmark.marking.verdicts import Kind
from exactmark.base.tree import remove_tree
from exactmark.diagnosis import diagnose
from exactmark.diagnosis.feedback import section_of
from exactmark.kit.rules import RuleError, rule_map
from exactmark.pack.published import CHECK_YOUR_WORK

CASE_SUFFIXES = (".in", ".args", ".out", ".err", ".status", ".stats", ".head")
CASES_FOLDER = "expected_outputs"  # as the handouts cite the cases
FRESH_NAME = re.compile(r"fresh_[A-Za-z0-9_-]+")  # as exactmark/kit/fresh.py names a case
BINS = 10
SHOWN_SPACE, SHOWN_TAB = "\u00b7", "→"
SPACE_RUN = re.compile(r" {2,}| +$|\t")  # the white space a reader cannot count by eye
# A quote in a sentence, as the report writes it: a run of backticks, then the text, then a
# run as long (a quote holding a backtick is fenced by two, as Markdown reads it).
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
PAGES = ("feedback.html", "feedback.txt")

NOT_SHOWN = "{count} case{s} ({groups}) {when}; their marks are counted in their groups above"
NEVER_SHOWN = ("{count} case{s} ({groups}) never shown, now or later: neither their input nor "
               "their output; how many pass and what they earn are in their groups above")
NOT_BUILT_CASES = "none of its {count} cases ran"
NOT_BUILT_SHOWN = "{count} case{s} of {program}, not listed: it did not build (its build is above)"
NOT_HANDED_IN_SHOWN = ("{count} case{s} of {program}, not listed: it was not handed in (it is "
                       "named above)")
REFUSED_NONE_RAN = "No case ran: the submission was refused (why is above)."
NO_NEWLINE = "no newline at end"
LATE_RULE = "Due {deadline}. {rule}"  # the rule: exactmark.kit.late's sentences
MISTAKES_COUNTED = "{caught} of {total} caught; which, {when}"
# What the reference prints is shown as the mistakes are: before, the page says only that a
# case is invalid and the kind of difference (its sentence quotes the reference's lines).
REFERENCE_WITHHELD = "how it differs from what the reference prints: {when}"
NO_TEAM = "no student has a valid case in this group"
FAIL_THE_SAME_WAY = "{count} cases fail the same way: {cases}"  # then the first one's words
TEAM = "a team of {members}: each gets this mark"
TEAM_COUNTED = "a team of {count}: each gets this mark"  # anonymous marking names none
MEMBER = "{name} ({id})"
BROKEN_BY = "{count} of {of} ({percent:.0f}%)"  # students, of those who handed its program in


@dataclass(frozen=True)
class View:
    """The moment pages are written for, and what the instructor has published."""
    assignment: object
    as_of: datetime
    published: bool
    pack_url: str = ""  # where the student pack is published, when it is
    terms: tuple = ()  # every student's of the class (None: the common): the last window
    anonymous: bool = False  # students named by pseudonym (exactmark.classroom.anonymous)

    def shown(self, visibility_of: str) -> bool:
        return visibility.is_shown(visibility_of, self.assignment, self.as_of, self.published,
                                   self.terms)

    def when(self, visibility_of: str) -> str:
        return visibility.when_shown(visibility_of, self.assignment, self.as_of, self.published,
                                     self.terms)


def drawn_line(line: dict) -> Markup:
    """A diff line for a page, escaped. On a line that differs, tabs, trailing spaces and
    runs of spaces are drawn (every space, and its line end, when it differs from its
    partner only in spacing); a line the same on both sides is shown as it is."""
    text, differs = line["text"], line["tag"] != " "
    every = differs and line.get("spacing_only")
    parts, at = [], 0
    spaces = re.finditer(r"[ \t]+", text) if every else SPACE_RUN.finditer(text) if differs else ()
    for match in spaces:
        parts.append(escape(text[at:match.start()]))
        drawn = match[0].replace(" ", SHOWN_SPACE).replace("\t", SHOWN_TAB)
        parts.append(Markup('<span class="ws" title="white space">{}</span>').format(drawn))
        at = match.end()
    parts.append(escape(text[at:]))
    if line.get("cut"):
        parts.append(escape(CUT.format(count=line["cut"])))
    if every and line["newline"]:
        parts.append(Markup('<span class="ws">{}</span>').format(END_OF_LINE))
    if not line["newline"]:
        parts.append(Markup('<span class="eol">{}</span>').format(NO_NEWLINE))
    return Markup("").join(parts)


def code_spans(text: str) -> Markup:
    """A sentence for a page, escaped, its quotes (`...`) shown as code, not as backticks."""
    parts, at = [], 0
    for match in CODE_SPAN.finditer(text):
        parts.append(escape(text[at:match.start()]))
        parts.append(Markup("<code>{}</code>").format(match[2]))
        at = match.end()
    parts.append(escape(text[at:]))
    return Markup("").join(parts)


TEMPLATES = Environment(loader=PackageLoader("exactmark.classroom", "templates"),
                        autoescape=select_autoescape(["html"]), trim_blocks=True,
                        lstrip_blocks=True, keep_trailing_newline=True)
TEMPLATES.filters.update(marks=sheet.shown_marks, drawn_line=drawn_line, code=code_spans,
                         to_match=lambda how: TO_MATCH.format(how=how))


def grade_row(outcome, assignment) -> Row:
    """One student's line of the grade sheet: every reason that applies, not the first."""
    student, data = outcome.student, outcome.marking
    row = Row(student.name, {program: data.programs[program].earned if program in data.programs
                             else 0 for program in assignment.marked_cases},
              raw=data.raw_score, mark=(outcome.results or {}).get("score", 0), id=student.id,
              passed=sum(case.passed for case in data.cases),
              cases=sum(assignment.case_count(program) for program in assignment.marked_cases
                        if ran(data, program)))  # a program not handed in: said, not counted
    if outcome.refused:
        row.statuses.append(sheet.REFUSED)
        row.notes.append(outcome.refused)
    if outcome.failed:
        row.statuses.append(sheet.FAILED)
        row.notes.append(outcome.failed)
    if outcome.unmarked:
        row.statuses.append(sheet.NOT_MARKED)
        row.notes.append(outcome.unmarked)
    late = assignment.mark_after_deadline(row.raw, student.submitted, student.terms)
    row.terms.extend(terms_lines(student.terms, assignment, late))
    if late is not None:
        row.days_late = late.days
        if not late.accepted:
            row.statuses.append(sheet.TOO_LATE)
            row.notes.append(late.explain(row.raw, terms=False))  # row.terms says them
    for name, program in data.programs.items():
        if not program.submitted:
            row.statuses.append(sheet.MISSING)
            row.notes.append(program.missing)
        elif program.build and not program.build.ok:
            row.statuses.append(sheet.NOT_BUILT)
            row.notes.append(sheet.NOT_BUILT_NOTE.format(program=name, said=program.build.said))
    row.notes.extend(student.notes)
    if student.untimed:
        row.statuses.append(sheet.UNTIMED)
        row.notes.append(student.untimed_note or sheet.NO_TIME)
    row.overridden = [overrides.said(override) for override in data.overrides]
    if outcome.refused:
        row.mark = 0
    row.statuses = list(dict.fromkeys(row.statuses))  # two programs missing: said once
    return row


def terms_lines(terms, assignment, late) -> list:
    """What a student's row and page say of their own terms: their due date where it is
    their own, and the late days of the term's bank spent here and left."""
    said = terms.said(assignment.deadline.tzinfo) if terms and assignment.deadline else ""
    lines = [said] if said else []
    if late is not None and late.free is not None:
        lines.append(BANK.format(spent=late.days_spent, free=late.free, left=late.days_left))
    return lines


def ran(data, program: str) -> bool:
    """Whether the marker ran `program`'s cases: it was handed in, in a submission not
    refused (a program that did not build ran none, but is said by its build)."""
    summary = data.programs.get(program)
    return summary is not None and summary.submitted


def not_shown(cases: list, view: View) -> list:
    """The cases a page does not show now, counted by when they will be, with their groups."""
    hidden = defaultdict(dict)  # when -> {(program, group): count}, in the cases' order
    for case in cases:
        if not view.shown(case.visibility):
            groups = hidden[view.when(case.visibility)]
            groups[case.program, case.group] = groups.get((case.program, case.group), 0) + 1
    order = [(program, group) for program in view.assignment.marked_cases
             for group in view.assignment.groups[program]]
    return [(NEVER_SHOWN if when == NEVER else NOT_SHOWN).format(
        count=count, s="s" * (count != 1), when=when,
        groups="; ".join(f"{program}, {group}" for program, group in sorted(groups, key=order.index)))
        for when, groups in hidden.items() for count in [sum(groups.values())]]


def feedback_of(outcome, row: Row, view: View) -> dict:
    """What the student may see, as data for the templates: their marks, per program and
    per group; the cases shown now, in full; the others only counted, with when they
    will be shown."""
    assignment, data = view.assignment, outcome.marking
    cases, late = data.cases, data.late
    programs = []
    for program, marked_cases in assignment.marked_cases.items():
        summary = data.programs.get(program)
        groups = {name: {"name": name, "when": "", "count": 0, "passed": 0, "earned": 0.0,
                         "marks": 0.0} for name in assignment.groups[program]}
        for marked in marked_cases:  # a missing program's groups too, at 0
            group = groups[marked.group]
            group["when"] = view.when(marked.visibility)
            group["count"] += 1
            group["marks"] += marked.marks
        for drawn in assignment.fresh_groups(program):  # drawn for this student alone
            group = groups[drawn.name]
            group.update(when=view.when(drawn.visibility), count=drawn.count, marks=drawn.marks)
        for case in (case for case in cases if case.program == program):
            groups[case.group]["passed"] += case.passed
            groups[case.group]["earned"] += case.earned
        for override in data.overrides:  # a group's own, after its cases' (overrides.ORDER)
            if override.level == overrides.GROUP and override.what.startswith(f"{program}/") \
                    and override.what[len(program) + 1:] in groups:
                groups[override.what[len(program) + 1:]]["earned"] = override.after
        build = summary.build if summary else None
        programs.append({"name": program, "earned": row.programs.get(program, 0),
                         "ran": ran(data, program),
                         "marks": assignment.program_marks(program),
                         "missing": summary.missing if summary and not summary.submitted else "",
                         "groups": list(groups.values()), "build": build,
                         "deduction": summary.deduction if summary else "",
                         "not_built": NOT_BUILT_CASES.format(count=len(marked_cases))
                         if build and not build.ok else ""})
    not_built = {program["name"] for program in programs if program["not_built"]}
    unbuilt = Counter(case.program for case in cases if view.shown(case.visibility)
                      and case.program in not_built)  # the build says it once
    shown = [case for case in cases if view.shown(case.visibility)
             and case.program not in not_built]
    missing = [(program, sum(view.shown(marked.visibility) for marked in marked_cases))
               for program, marked_cases in assignment.marked_cases.items()
               if data.programs.get(program) and not data.programs[program].submitted]
    return {"student": outcome.student.name, "assignment": assignment, "row": row,
            "members": team(outcome.student.members, view),
            "late": late.explanation if late else "", "programs": programs,
            "failing": [case for case in shown if not case.passed],
            "failing_groups": [{"cases": cases, "said": FAIL_THE_SAME_WAY.format(
                count=len(cases), cases=", ".join(case.case for case in cases))
                if len(cases) > 1 else ""}
                for cases in grouped([case for case in shown if not case.passed], same_way)],
            "passing": [case for case in shown if case.passed],
            "not_shown": not_shown(cases, view),
            "unbuilt": [NOT_BUILT_SHOWN.format(count=count, s="s" * (count != 1), program=program)
                        for program, count in unbuilt.items()] + [
                NOT_HANDED_IN_SHOWN.format(count=count, s="s" * (count != 1), program=program)
                for program, count in missing if count],
            "none_ran": REFUSED_NONE_RAN if outcome.refused else "",
            "overridden": [overrides.said_to_student(override, override.level != overrides.CASE
                                                     or view.shown(override.visibility))
                           for override in data.overrides],
            "cases_folder": CASES_FOLDER, "written": written_groups(outcome, view),
            "suggested": suggested(data.diagnoses, assignment.marked_cases, widest_level(view)),
            "pack_said": CHECK_YOUR_WORK.format(url=view.pack_url) if view.pack_url else ""}


def widest_level(view: View) -> str:
    """The level of diagnosis (diagnose.LEVELS) a page may show at its time: that of the
    latest cases it shows, so that a diagnosis rests on no case the page does not show
    (never "hidden": no page shows those)."""
    for level in (visibility.AFTER_PUBLISHED, visibility.AFTER_DUE_DATE):
        if view.shown(level):
            return level
    return visibility.VISIBLE


def suggested(diagnoses, programs, level: str) -> list:
    """Per program, the lines of its diagnosis at `level` (the mistakes named, then the
    failures by rule), where it has any."""
    found = []
    for program in programs:
        diagnosis = diagnose.at(diagnoses, program, level)
        if diagnosis and (diagnosis.said or diagnosis.by_rule):
            found.append({"program": program, "said": diagnosis.said,
                          "by_rule": diagnosis.by_rule})
    return found


def team(members: list, view: View) -> str:
    """Who shares the mark, on a team's page: by name, or counted when marking is anonymous."""
    if len(members) <= 1:
        return ""
    if view.anonymous:
        return TEAM_COUNTED.format(count=len(members))
    return TEAM.format(members=", ".join(MEMBER.format(name=escaped(person.name),
                                                       id=escaped(person.id))
                                         for person in members))


def same_way(case) -> tuple:
    """What a failed case shares with the cases that fail the same way, each failed verdict
    alike (exactmark.marking.grouping); its own name when its record does not say."""
    ways = tuple(verdict.difference for verdict in case.verdicts if verdict.kind != Kind.PASS)
    return ways if all(ways) else (case.case,)


def written_groups(outcome, view: View) -> list:
    """The groups of cases the student wrote, as their page shows them: the marks of each
    count, each case, the worked example of a case; the mistakes their cases caught and
    missed, and what the reference prints on an invalid case, once the group's visibility
    shows them (before that, how many were caught, and which cases are invalid)."""
    assignment, shown = view.assignment, []
    for record in outcome.marking.student_groups:
        group = next((group for group in assignment.student_groups(record.program)
                      if group.name == record.group), None)
        caught = sum(1 for mistake in record.mistakes if mistake.caught_by)
        named = view.shown(record.visibility)
        shown.append({"record": record, "named": named,
                      "earned": sum(record.earned.values()), "marks": sum(record.marks.values()),
                      "counts": [(COUNT_NAMES[count], record.earned[count], record.marks[count],
                                  record.said[count]) for count in COUNTS],
                      "counted": "" if named or not record.mistakes else MISTAKES_COUNTED.format(
                          caught=caught, total=len(record.mistakes),
                          when=view.when(record.visibility)),
                      "withheld": "" if named else REFERENCE_WITHHELD.format(
                          when=view.when(record.visibility)),
                      "example": group.example if group else None,
                      "suffixes": CASE_FILES})
    return shown


def write_feedback(folder: Path, outcome, row: Row, view: View) -> None:
    """The student's folder, written whole and then put in place of the last one: their
    pages, and the input and expected output of each case the pages show, laid out as the
    handouts cite them. Nothing else: it can be handed to them as it is."""
    page = feedback_of(outcome, row, view)
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        os.chmod(fresh, 0o700)
        for name in PAGES:
            (fresh / name).write_text(TEMPLATES.get_template(name).render(**page),
                                      encoding="utf-8")
        cases = {marked.case.id: marked.case for program in view.assignment.marked_cases.values()
                 for marked in program}
        examples = [group["example"] for group in page["written"] if group["example"]]
        for case in examples + [cases[shown.case] for shown in page["failing"] + page["passing"]
                                if shown.case in cases]:
            into = fresh / CASES_FOLDER / case.folder.name  # as the handouts cite them
            into.mkdir(parents=True, exist_ok=True)
            for suffix in CASE_SUFFIXES:
                if case.file(suffix).exists():
                    (into / case.file(suffix).name).write_bytes(case.file(suffix).read_bytes())
        for shown in page["failing"] + page["passing"]:  # a fresh case's, from its record
            into = fresh / CASES_FOLDER / shown.program  # as reproduce names its folder
            files = shown.files if FRESH_NAME.fullmatch(shown.name) else None
            for suffix, data in ((suffix, data) for suffix, data in (files or {}).items()
                                 if suffix in CASE_SUFFIXES):
                into.mkdir(parents=True, exist_ok=True)
                (into / f"{shown.name}{suffix}").write_bytes(base64.b64decode(data))
        old = folder.with_name(f"{fresh.name}.old")
        if folder.exists():
            os.replace(folder, old)
        os.replace(fresh, folder)
        remove_tree(old)
    finally:
        remove_tree(fresh)


def histogram(marks: list, total: float) -> list:
    """BINS bars over 0..total: (low, high, count), the last bar holding full marks."""
    width = total / BINS
    counts = Counter(min(int(mark / width), BINS - 1) if width else 0 for mark in marks)
    return [(round(i * width, 2), round((i + 1) * width, 2), counts[i]) for i in range(BINS)]


def failures_by_group(outcomes: list, assignment) -> list:
    """Per program and group of the assignment: its cases, how often the students who
    handed the program in failed them, and each case someone fails, worst first."""
    failed, seen = Counter(), Counter()
    for outcome in outcomes:
        for case in outcome.marking.cases:
            seen[case.case] += 1
            failed[case.case] += not case.passed
    groups = defaultdict(list)
    for program, marked_cases in assignment.marked_cases.items():
        for marked in marked_cases:
            groups[program, marked.group].append((marked.case.id, marked.visibility))
    drawn = {(group.program, group.name): group for program in assignment.marked_cases
             for group in assignment.fresh_groups(program)}
    for outcome in outcomes:  # each student's own fresh cases
        for case in outcome.marking.cases:
            if (case.program, case.group) in drawn:
                groups[case.program, case.group].append((case.case, case.visibility))
    found = []
    for (program, group), members in groups.items():
        ids = list(dict.fromkeys(case for case, _ in members))
        runs = sum(seen[case] for case in ids)
        fails = sum(failed[case] for case in ids)
        failing = sorted(((case, failed[case], seen[case]) for case in ids if failed[case]),
                         key=lambda item: (-item[1] / item[2], item[0]))
        fresh = drawn.get((program, group))
        found.append({"program": program, "group": group,
                      "cases": fresh.count if fresh else len(ids),
                      "marks": fresh.marks if fresh else sum(
                          marked.marks for marked in assignment.marked_cases[program]
                          if marked.group == group),
                      "visibility": members[0][1], "runs": runs, "failed": fails,
                      "rate": fails / runs if runs else 0.0, "failing": failing})
    return sorted(found, key=lambda group: (-group["rate"], group["program"], group["group"]))


def mistakes_caught(outcomes: list, assignment) -> list:
    """Per group of cases the students write, each of its wrong programs: how many of the
    students with a valid case in the group caught it, fewest first (a mistake no student
    catches usually means a rule the handout does not make clear)."""
    found = []
    for program in assignment.marked_cases:
        for group in assignment.student_groups(program):
            caught, words, students = Counter(), {}, 0
            for outcome in outcomes:
                record = next((record for record in outcome.marking.student_groups
                               if (record.program, record.group) == (program, group.name)), None)
                if record is None or not any(case.valid for case in record.cases):
                    continue
                students += 1
                for mistake in record.mistakes:
                    caught[mistake.name] += bool(mistake.caught_by)
                    words.setdefault(mistake.name, mistake.mistake)
            found.append({"program": program, "group": group.name, "students": students,
                          "none": NO_TEAM if not students else "",
                          "mistakes": sorted(((name, words.get(name, ""), caught[name])
                                              for name in group.mistakes),
                                             key=lambda item: (item[2], item[0]))})
    return found


def near_miss_kinds(outcomes: list) -> list:
    """The most common ways a failed case came close, by kind of near miss."""
    kinds = Counter(case.near_miss_kind for outcome in outcomes for case in outcome.marking.cases
                    if not case.passed and case.near_miss_kind)
    return kinds.most_common(10)


@dataclass(frozen=True)
class Broken:
    """A rule of a handout, and how many students' diagnoses name it, of how many."""
    rule: object  # exactmark.kit.rules.Rule
    students: int
    of: int  # the students who handed in a program it is a rule of

    @property
    def section(self) -> str:
        return section_of(self.rule.section)

    @property
    def quote(self) -> str:
        """As the handout reads: a quote's line breaks are spaces."""
        return " ".join(self.rule.quote.split())

    @property
    def said(self) -> str:
        return BROKEN_BY.format(count=self.students, of=self.of,
                                percent=100 * self.students / self.of if self.of else 0)


def ranked_rules(named: dict, rules: dict, handed_in: dict) -> list:
    """The rules the students' diagnoses name, the most students first, ties in the
    handouts' order. `named`: student -> the (program, rule id) their diagnoses name;
    `rules`: program -> its rule map's rules (id -> Rule), in order; `handed_in`: program ->
    the students whose program ran. A rule two programs share (a rule list one takes from
    another) is one rule: each student counts once for it."""
    order = list(dict.fromkeys(rule for its in rules.values() for rule in its.values()))
    students = Counter()
    for found in named.values():
        students.update({rules[program][rule_id] for program, rule_id in found
                         if rule_id in rules.get(program, {})})

    def of(rule) -> int:
        return len(set().union(*(handed_in.get(program, ()) for program, its in rules.items()
                                 if rule in its.values())))

    return sorted((Broken(rule, count, of(rule)) for rule, count in students.items()),
                  key=lambda broken: (-broken.students, order.index(broken.rule)))


def rules_broken(outcomes: list, assignment) -> list:
    """The class's rules ranked (ranked_rules), from each student's diagnosis that sees
    every case: the instructor's."""
    rules = {}
    for program in assignment.marked_cases:
        try:
            found = rule_map(assignment.programs[program])
        except RuleError:
            found = None
        rules[program] = found.rules if found else {}
    named = {outcome.student.name: {
        (diagnosis.program, rule_id) for program in assignment.marked_cases
        for diagnosis in [diagnose.at(outcome.marking.diagnoses, program, diagnose.LEVELS[-1])]
        if diagnosis for rule_id in diagnosis.rules} for outcome in outcomes}
    handed_in = {program: {outcome.student.name for outcome in outcomes
                           if ran(outcome.marking, program)} for program in assignment.marked_cases}
    return ranked_rules(named, rules, handed_in)


def same_outputs(outcomes: list, scanned, least: float) -> list:
    """The pairs of students that give the same rare wrong output (classroom/same_output.py),
    each with what the similarity scan (of pairs scoring at least `least`) found of their code."""
    return [{"pair": pair, "code": same_output.code_similarity(pair, scanned.pairs, least)}
            for pair in same_output.pairs({outcome.student.name: outcome.marking.cases
                                           for outcome in outcomes})]


def coverage(outcomes: list, scanned, assignment) -> list:
    """Per program, whose versions the similarity scan compared (and which look-alike, or
    how much of it), and whose not and why."""
    programs = []
    for program in assignment.marked_cases:
        compared, left_out = [], []
        for outcome in outcomes:
            name = outcome.student.name
            why = outcome.refused and f"entry refused: {outcome.refused}"
            why = why or scanned.left_out.get((name, program))
            if why:
                left_out.append((name, why))
            else:
                compared.append((name, "; ".join(note for note in (
                    scanned.taken.get((name, program)), scanned.cut.get((name, program)))
                    if note)))
        programs.append({"program": program, "compared": compared, "left_out": left_out})
    return programs


def write_summary(out: Path, outcomes: list, rows: list, scanned, view: View,
                  links: dict, least: float = 0.0, absent: list = (), regrades: dict = None) -> None:
    """summary.html; `least`: the score below which the similarity scan lists no pair;
    `absent`: the students a platform lists who handed nothing in; `regrades`: who was
    re-marked and why, and the marks that changed (exactmark.classroom.regrade.summary)."""
    assignment = view.assignment
    marks = [row.mark for row in rows if sheet.REFUSED not in row.statuses
             and sheet.NOT_MARKED not in row.statuses]  # entries marked
    bars = histogram(marks, assignment.marks)
    page = {"assignment": assignment, "rows": rows, "bars": bars, "marked": len(marks),
            "refused": sum(sheet.REFUSED in row.statuses for row in rows),
            "tallest": max([count for _, _, count in bars] + [1]),
            "groups": failures_by_group(outcomes, assignment),
            "mistakes": mistakes_caught(outcomes, assignment),
            "kinds": near_miss_kinds(outcomes), "pairs": [pair for pair in scanned.pairs
                                                         if pair.view],
            "all_pairs": len(scanned.pairs), "least": least, "coverage": coverage(outcomes, scanned, assignment),
            "links": links, "mean": sum(marks) / len(marks) if marks else 0, "absent": absent,
            "late_rule": late_rule(assignment), "as_of": view.as_of,
            "anonymous": view.anonymous,
            "shown_from": None if view.published else visibility.shown_from(assignment,
                                                                             view.terms),
            "regrades": regrades or {}, "rules": rules_broken(outcomes, assignment),
            "same": same_outputs(outcomes, scanned, least), "same_said": {
                "ranked": same_output.RANKED, "flag": same_output.FLAG, "none": same_output.NONE}}
    (out / "summary.html").write_text(TEMPLATES.get_template("summary.html").render(**page),
                                      encoding="utf-8")


def late_rule(assignment) -> str:
    """The late rule in the handout's words, for the summary."""
    if assignment.deadline is None:
        return ""
    return LATE_RULE.format(deadline=visibility_time(assignment.deadline),
                            rule=assignment.late_sentence())


def visibility_time(when: datetime) -> str:
    return f"{when.strftime(visibility.WHEN)} ({when.tzinfo})"

