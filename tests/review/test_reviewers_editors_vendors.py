"""Issue #32 items 9-18, from outside: what a reviewer, an editor, a vendor, a voter and an anonymous visitor
see and may do on the review form, a correction, an unpublished round's board, the vendor window and preview,
the runs' delete action and the run form (seed 000 §5 review, §6 vendor window and corrections)."""

import re
from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from bundles.importer import bundle_import
from leaderboard.models import Benchmark, ChangelogEntry, Round
from recompute.boards import snapshot_recompute
from runs.models import Evidence, Run, Verdict
from runs.services import round_enter_preview, round_publish, run_update, verdict_record
from snapshots.models import BoardSnapshot
from tests.builders.review import (
    BENCH,
    ROUND,
    SECRET_CITY,
    SECRET_PHONE,
    TESTER_NOTE,
    make_people,
    make_world,
    publish_world,
)
from tests.builders.site import scored_bundle

pytestmark = pytest.mark.django_db

SECOND_NOTE = "Second-note: the itinerary was there after all"


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def _recompute():
    for snap_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)


def publish(w):
    publish_world(w)
    _recompute()


def add_form(run, role):
    return f"/admin/runs/verdict/add/?run={run.pk}&role={role}"


# --- 9. the prompt with the round's values, for reviewers only ------------------------------------------------


def test_it_shows_a_reviewer_the_prompt_with_the_rounds_values_filled_in(client, w):
    verdict_record(run=w["acme-trip"], role="tester", reviewer=w["tester"], outcome="pass", note=TESTER_NOTE)
    client.force_login(w["second"])
    html = client.get(add_form(w["acme-trip"], "second")).content.decode()
    # "Plan a weekend in {city}; call {phone} to check." as the tester sent it.
    assert f"Plan a weekend in {SECRET_CITY}; call {SECRET_PHONE} to check." in html
    assert "{city}" not in html
    assert TESTER_NOTE not in html  # still blind to the tester's verdict
    html = client.get(f"/admin/runs/run/{w['acme-trip'].pk}/change/").content.decode()
    assert f"Plan a weekend in {SECRET_CITY}; call {SECRET_PHONE} to check." in html and TESTER_NOTE not in html


@pytest.mark.parametrize("who", ["anonymous", "plain", "vendor"])
def test_the_rounds_values_stay_private_to_everyone_else(client, w, who):
    if who != "anonymous":
        client.force_login(w[who])
    for url in [
        add_form(w["acme-trip"], "second"),
        f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/",
        f"/api/benchmarks/{BENCH}/runs/{ROUND}/acme-trip",
        f"/b/{BENCH}/r/{ROUND}/",
    ]:
        response = client.get(url)
        assert SECRET_CITY not in response.content.decode(), (who, url)


# --- 10. one way to enter an outcome ---------------------------------------------------------------------------


def _form_part(html: str) -> str:
    return html.split('id="verdict_form"')[1].split("</form>")[0]


def test_the_review_form_offers_one_outcome_control_and_the_reason_only_after_publication(client, w):
    client.force_login(w["tester"])
    run = w["acme-trip"]
    form = _form_part(client.get(add_form(run, "tester")).content.decode())
    # One control: the outcome menu; no "Matched" boxes, no "if you do both" (a draft: no reason either).
    assert form.count('name="outcome"') == 1 and 'type="checkbox" name="matched"' not in form
    assert "Matched" not in form and "if you do both" not in form
    assert 'name="reason"' not in form and "Only after publication" not in form
    assert (
        client.post(
            add_form(run, "tester"), {"run": run.pk, "role": "tester", "outcome": "partial", "note": "seen"}
        ).status_code
        == 302
    )
    assert Verdict.objects.get(run=run, role="tester").outcome == "partial"


def test_a_run_of_a_published_round_asks_the_reason_on_the_review_form(client, w):
    publish(w)
    late = Run.objects.filter(round=w["round"]).first()
    Verdict.objects.filter(run=late).delete()
    Run.objects.filter(pk=late.pk).update(outcome="")
    client.force_login(w["tester2"])
    form = _form_part(client.get(add_form(late, "tester")).content.decode())
    assert 'name="reason"' in form and "The round is published: say why" in form
    data = {"run": late.pk, "role": "tester", "outcome": "pass", "note": "late look"}
    html = client.post(add_form(late, "tester"), data).content.decode()
    assert 'name="reason"' in _form_part(html) and not Verdict.objects.filter(run=late).exists()  # asked, shown


def _role_choices(html: str) -> list[str]:
    menu = html.split('name="role"')[1].split("</select>")[0]
    return [o.split('"')[0] for o in menu.split('<option value="')[1:] if o.split('"')[0]]


def test_the_role_menu_offers_the_third_reviewer_only_where_the_first_two_disagree(client, w):
    run = w["acme-trip"]
    client.force_login(w["second"])
    # A second review: "third reviewer" is not offered.
    assert _role_choices(client.get(add_form(run, "second")).content.decode()) == ["second"]
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note=TESTER_NOTE)
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", note=SECOND_NOTE)
    client.force_login(w["third"])
    assert "third" not in _role_choices(client.get(add_form(run, "third")).content.decode())  # they agree
    Verdict.objects.filter(run=run, role="second").update(outcome="fail")
    assert _role_choices(client.get(add_form(run, "third")).content.decode()) == ["third"]
    client.force_login(w["second"])  # one of the two who disagree is never offered the decision
    assert "third" not in _role_choices(client.get(add_form(run, "third")).content.decode())


def test_a_published_verdict_offers_no_delete_and_a_drafts_does(client, w):
    client.force_login(w["editor"])
    draft_verdict = verdict_record(run=w["acme-trip"], role="tester", reviewer=w["tester"], outcome="pass", note="x")
    html = client.get(f"/admin/runs/verdict/{draft_verdict.pk}/change/").content.decode()
    assert 'class="deletelink"' in html
    Verdict.objects.all().delete()
    publish(w)
    published = Verdict.objects.filter(run__round=w["round"]).first()
    html = client.get(f"/admin/runs/verdict/{published.pk}/change/").content.decode()
    assert 'class="deletelink"' not in html
    assert client.get(f"/admin/runs/verdict/{published.pk}/delete/").status_code == 403
    # The list's delete action leaves published verdicts out before asking: no "Are you sure?" then a refusal.
    response = client.post(
        "/admin/runs/verdict/", {"action": "delete_selected", "_selected_action": [published.pk]}, follow=True
    )
    html = response.content.decode()
    assert "Are you sure" not in html and "belong to a published round and are never deleted" in html
    assert Verdict.objects.filter(pk=published.pk).exists()


def test_publish_says_after_the_preview_only_where_the_benchmark_has_a_vendor_window(client, w):
    client.force_login(w["editor"])
    bench = Benchmark.objects.get(slug=BENCH)
    listed = f"/admin/leaderboard/round/?benchmark__id__exact={bench.pk}"

    def actions() -> str:
        return client.get(listed).content.decode().split('name="action"')[1].split("</select>")[0]

    assert bench.preview_hours == 48
    assert "Publish (after the preview, with every run reviewed)" in actions() and "Enter preview" in actions()
    # No vendor window: the round publishes straight from draft, and the menu says only that.
    Benchmark.objects.filter(pk=bench.pk).update(preview_hours=0)
    assert "Publish (with every run reviewed)" in actions()
    assert "preview" not in actions()


# --- 11. the third reviewer sees what they decide between; the second never sees the first ---------------------


def test_the_third_reviewer_sees_both_earlier_verdicts_and_their_notes(client, w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="partial", note=TESTER_NOTE)
    client.force_login(w["second"])
    html = client.get(add_form(run, "second")).content.decode()
    assert TESTER_NOTE not in html and "partial" not in html.split('id="review-run"')[1].split("</fieldset>")[0]
    assert 'id="earlier-verdicts"' not in html
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", note=SECOND_NOTE)
    # the second reviewer, after entering theirs, still does not see the tester's
    assert TESTER_NOTE not in client.get(add_form(run, "second")).content.decode()
    client.force_login(w["third"])
    html = client.get(add_form(run, "third")).content.decode()
    section = html.split('id="earlier-verdicts"')[1].split("</fieldset>")[0]
    assert TESTER_NOTE in section and SECOND_NOTE in section
    assert "<strong>partial</strong>" in section and "<strong>pass</strong>" in section


# --- 12. a correction says what it does ------------------------------------------------------------------------


def test_a_published_verdicts_correction_shows_its_effect_then_asks_for_the_reason(client, w):
    publish(w)
    client.force_login(w["editor"])
    verdict = Verdict.objects.get(run=w["acme-trip"], role="tester")
    url = f"/admin/runs/verdict/{verdict.pk}/change/"
    response = client.post(url, {"outcome": "fail", "note": "as seen", "reason": ""})
    assert response.status_code == 200
    html = response.content.decode()
    effect = html.split('id="correction-effect"')[1].split("</fieldset>")[0]
    # Tester pass -> fail while the second says pass: the run goes back to review. Acme had trip, inbox and
    # remind passed: 3 tasks * 2 points = 6 of 6 -> 10.0; with trip in review 2 tasks are tested, 4 of 4 ->
    # 10.0 still (no change shown), but tested 3 -> 2, points 6 -> 4, and the trip cell pass -> in review, said
    # as the board says them (tests/review/test_correction_preview_words.py has the words in full).
    assert "Acme Agent: Trip plan <strong>pass → in review</strong>" in effect
    assert "Acme Agent: Coverage <strong>tested 3 of 3 → tested 2 of 3</strong>" in effect
    assert "<strong>6 points over 3 tested tasks → 4 points over 2 tested tasks</strong>" in effect
    assert "Score (0-10) <strong>" not in effect and "Other Agent" not in effect and "axis_runs" not in effect
    assert "goes back to review until a third reviewer decides" in effect
    # The effect is the correction's next step, asking for the reason: no error banner over it.
    assert "Give the reason below" in html and 'class="errornote"' not in html and "Say why" not in html
    assert Verdict.objects.get(pk=verdict.pk).outcome == "pass" and not ChangelogEntry.objects.exists()
    token = "fail|"
    # Saved again without a reason: now that is an error, and nothing is saved.
    html = client.post(url, {"outcome": "fail", "note": "as seen", "reason": "", "effect_seen": token}).content.decode()
    assert "Say why" in html and 'class="errornote"' in html and 'id="correction-effect"' in html
    assert Verdict.objects.get(pk=verdict.pk).outcome == "pass" and not ChangelogEntry.objects.exists()
    response = client.post(
        url, {"outcome": "fail", "note": "as seen", "reason": "The recording shows no itinerary.", "effect_seen": token}
    )
    assert response.status_code == 302
    assert Verdict.objects.get(pk=verdict.pk).outcome == "fail"
    entry = ChangelogEntry.objects.get()
    # Back in review: the log says what the board lost, not the corrected verdict (blind until decided).
    assert entry.what == (
        "Run acme-trip: a verdict was corrected; the verdicts are published once its review is complete; "
        "counted outcome: pass -> in review"
    )
    html = client.get(f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/").content.decode()
    today = timezone.localdate(entry.created_at)
    assert f"Corrected on {today.day} {today:%b %Y}: The recording shows no itinerary." in html
    # in review, so it does not count: never both
    assert "counts in the rankings" not in html and "does not count: in review" in html


def test_a_changed_outcome_needs_the_effect_seen_for_that_very_outcome(client, w):
    publish(w)
    client.force_login(w["editor"])
    verdict = Verdict.objects.get(run=w["acme-trip"], role="tester")
    response = client.post(
        f"/admin/runs/verdict/{verdict.pk}/change/",
        {"outcome": "partial", "note": "as seen", "reason": "Because.", "effect_seen": "fail|"},
    )
    assert response.status_code == 200 and 'id="correction-effect"' in response.content.decode()
    assert Verdict.objects.get(pk=verdict.pk).outcome == "pass"


def test_the_changelog_says_a_run_correction_in_words(w):
    publish(w)
    run_update(run=w["acme-trip"], by=w["editor"], changes={"cost_usd": "2.23"}, reason="Invoice checked.")
    run_update(run=w["acme-trip"], by=w["editor"], changes={"cost_usd": "1.23"}, reason="Invoice checked again.")
    whats = list(ChangelogEntry.objects.order_by("id").values_list("what", flat=True))
    assert whats == ["Run acme-trip: cost (USD): none -> 2.23", "Run acme-trip: cost (USD): 2.23 -> 1.23"]


# --- 13. staff see an unpublished round's boards, marked "not public" ------------------------------------------


@pytest.mark.parametrize(
    "who, status", [("anonymous", 404), ("plain", 404), ("vendor", 404), ("second", 200), ("editor", 200)]
)
def test_an_unpublished_rounds_board_is_for_staff_only(client, w, who, status):
    _recompute()
    if who != "anonymous":
        client.force_login(w[who])
    for url in [f"/b/{BENCH}/r/{ROUND}/", f"/b/{BENCH}/r/{ROUND}/?tab=safety", f"/b/{BENCH}/"]:
        response = client.get(url)
        assert response.status_code == status, (who, url)
        if status == 200:
            assert "Not public." in response.content.decode(), url


def test_the_staff_board_of_a_round_in_review_tells_no_reviewer_how_another_judged(client, w):
    # The tester passed acme-trip; the second reviewer failed it. The draft board (staff only) must not say
    # "agreed on 0 of 1": the tester would learn the second disagreed before the review is over (000 §5).
    run = w["acme-trip"]
    now = (run.due_at or timezone.now()) + timedelta(seconds=1)
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="as seen", now=now)
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="fail", now=now)
    _recompute()
    for who in ("tester", "second", "editor"):
        client.force_login(w[who])
        html = client.get(f"/b/{BENCH}/r/{ROUND}/").content.decode()
        assert "Not public." in html
        assert 'id="review-agreement"' not in html and "Reviewers agreed" not in html, who


def test_the_admins_view_on_site_opens_the_draft_board_for_staff(client, w):
    client.force_login(w["editor"])
    ct = ContentType.objects.get_for_model(Round)
    response = client.get(f"/admin/r/{ct.pk}/{w['round'].pk}/", follow=True)
    assert response.status_code == 200 and "Not public." in response.content.decode()


# --- 14. the vendor window belongs to the benchmark ------------------------------------------------------------


def _decide_all(w):
    for run in Run.objects.filter(round=w["round"]):
        now = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="as seen", now=now)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", now=now)


def test_a_benchmark_without_a_vendor_window_publishes_straight_from_draft(client, w):
    _decide_all(w)
    later = timezone.now() + timedelta(days=3)
    with pytest.raises(Exception, match="enters the vendor preview first \\(48 hours\\)"):
        round_publish(round=w["round"], by=w["editor"], now=later)
    Benchmark.objects.filter(slug=BENCH).update(preview_hours=0)
    rnd = round_publish(round=Round.objects.get(pk=w["round"].pk), by=w["editor"], now=later)
    assert rnd.status == "published"
    html = client.get(f"/b/{BENCH}/methodology/").content.decode()
    assert "Vendor fact check:</strong> none" in html


def test_the_window_is_the_benchmarks_own_number_of_hours(client, w):
    Benchmark.objects.filter(slug=BENCH).update(preview_hours=6)
    _decide_all(w)
    start = timezone.now()
    round_enter_preview(round=w["round"], by=w["editor"], now=start)
    rnd = Round.objects.get(pk=w["round"].pk)
    with pytest.raises(Exception, match="runs until"):
        round_publish(round=rnd, by=w["editor"], now=start + timedelta(hours=5))
    assert round_publish(round=rnd, by=w["editor"], now=start + timedelta(hours=6, seconds=1)).is_published
    assert "vendors see their own results 6 hours before" in client.get(f"/b/{BENCH}/methodology/").content.decode()


def test_a_bundle_carries_the_vendor_window(w):
    from bundles.export import bundle_export

    Benchmark.objects.filter(slug=BENCH).update(preview_hours=12)
    doc = bundle_export(benchmark=Benchmark.objects.get(slug=BENCH), include_unpublished=True)
    assert doc["benchmark"]["params"]["preview_hours"] == 12
    doc["benchmark"]["params"]["preview_hours"] = 0
    bundle_import(doc=doc)
    assert Benchmark.objects.get(slug=BENCH).preview_hours == 0


# --- 16. vendors find their preview ----------------------------------------------------------------------------


def test_a_vendor_has_a_preview_link_and_sees_what_each_agent_was_tested_with(client, w):
    _decide_all(w)
    Evidence.objects.create(run=w["acme-trip"], kind="recording", url="https://evidence.example.org/trip.mp4")
    round_enter_preview(round=w["round"], by=w["editor"])
    client.force_login(w["vendor"])
    home = client.get("/").content.decode()
    assert '<a href="/preview/">Preview</a>' in home
    html = client.get(f"/preview/{BENCH}/{ROUND}/").content.decode()
    tested = html.split('id="entry-acme-agent"')[1].split("</dl>")[0]
    assert "<dt>Version</dt><dd>1.2</dd>" in tested and "<dt>Plan</dt><dd>not recorded</dd>" in tested
    assert "<dt>Region</dt>" in tested and "<dt>Network</dt>" in tested
    assert 'href="https://evidence.example.org/trip.mp4"' in html
    assert "Other Agent" not in html


def test_the_vendors_preview_links_each_run_to_its_page_and_shows_the_figures_the_board_will_publish(client, w):
    _decide_all(w)
    round_enter_preview(round=w["round"], by=w["editor"])
    _recompute()
    client.force_login(w["vendor"])
    html = client.get(f"/preview/{BENCH}/{ROUND}/").content.decode()
    section = html.split('id="entry-acme-agent"')[1].split("</section>")[0]
    # The figure and rank are the board's own (the round's board as staff see it before publication).
    shown = re.search(r"The board will publish: <strong>Overall \(0-10\) ([\d.]+)</strong>, rank (\d) of 2", section)
    assert shown is not None, section[:600]
    client.force_login(w["editor"])
    board = client.get(f"/b/{BENCH}/r/{ROUND}/").content.decode()
    acme_row = board.split("Acme Agent")[1].split("</tr>")[0]
    assert f">{shown.group(1)}<" in acme_row or f"{shown.group(1)}" in acme_row
    client.force_login(w["vendor"])
    for key in ("acme-trip", "acme-inbox"):
        link = f'href="/b/{BENCH}/r/{ROUND}/runs/{key}/"'
        assert link in section, key
    assert '<td class="run-result">pass' in section
    # The run's page opens for the vendor, marked not public, without the round's private values.
    page = client.get(f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/").content.decode()
    assert "Not public." in page and "This round is in preview" in page
    assert SECRET_CITY not in page and SECRET_PHONE not in page


@pytest.mark.parametrize("who", ["anonymous", "plain", "second", "other_vendor", "editor"])
def test_a_preview_runs_page_is_for_its_vendor_and_staff_only(client, w, who):
    _decide_all(w)
    round_enter_preview(round=w["round"], by=w["editor"])
    if who != "anonymous":
        client.force_login(w[who])
    # Staff see the round's board before the public, and every page it links to (its runs' pages with them),
    # marked not public; anyone else but the run's vendor gets "not found", its JSON too.
    staff = who in ("second", "editor")
    page = client.get(f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/")
    assert page.status_code == (200 if staff else 404)
    assert client.get(f"/b/{BENCH}/r/{ROUND}/runs/acme-trip.json").status_code == (200 if staff else 404)
    if staff:
        assert "only staff see this page" in page.content.decode()
    # The preview itself: sign-in first for the anonymous visitor, "not found" for anyone not a vendor.
    assert client.get(f"/preview/{BENCH}/{ROUND}/").status_code == {"anonymous": 302, "other_vendor": 200}.get(who, 404)
    if who == "other_vendor":  # its own preview lists its own runs only, linked; Acme's stay out
        html = client.get(f"/preview/{BENCH}/{ROUND}/").content.decode()
        assert "acme-trip" not in html and f'href="/b/{BENCH}/r/{ROUND}/runs/other-trip/"' in html


def test_a_draft_runs_page_is_not_found_even_for_its_vendor(client, w):
    client.force_login(w["vendor"])
    assert client.get(f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/").status_code == 404


@pytest.mark.parametrize("who", ["anonymous", "plain", "second"])
def test_no_one_but_a_vendor_gets_the_preview_link(client, w, who):
    if who != "anonymous":
        client.force_login(w[who])
    assert 'href="/preview/"' not in client.get("/").content.decode()


# --- 17. no surprise deletes -----------------------------------------------------------------------------------


def test_deleting_selected_runs_asks_first_and_says_what_goes_with_them(client, w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="seen")
    Evidence.objects.create(run=run, kind="recording", url="https://evidence.example.org/trip.mp4")
    client.force_login(w["editor"])
    response = client.post("/admin/runs/run/", {"action": "delete_selected", "_selected_action": [run.pk]})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Are you sure" in html and "Verdicts: 1" in html and "Evidence: 1" in html
    assert "Tester: pass" not in html  # the summary counts verdicts; it never names their outcome
    assert Run.objects.filter(pk=run.pk).exists()
    response = client.post(
        "/admin/runs/run/", {"action": "delete_selected", "_selected_action": [run.pk], "post": "yes"}, follow=True
    )
    assert "Deleted 1 runs." in response.content.decode()
    assert not Run.objects.filter(pk=run.pk).exists() and not Verdict.objects.filter(run_id=run.pk).exists()


# --- 18. the run form shows its methodology's fields; names as written -----------------------------------------


def test_the_run_form_shows_the_fields_of_the_runs_methodology_only(client, w):
    bundle_import(doc=scored_bundle())
    client.force_login(w["editor"])
    outcomes_form = client.get(f"/admin/runs/run/{w['acme-trip'].pk}/change/").content.decode()
    assert 'name="due_at' in outcomes_form and 'name="tests_passed"' not in outcomes_form
    assert 'name="interventions"' not in outcomes_form and 'name="api_checks_total"' not in outcomes_form
    scored = Run.objects.filter(round__benchmark__slug="sbench").first()
    scored_form = client.get(f"/admin/runs/run/{scored.pk}/change/").content.decode()
    assert 'name="tests_passed"' in scored_form and 'name="interventions"' not in scored_form


def test_admin_messages_name_a_round_as_written(client, w):
    client.force_login(w["editor"])
    response = client.post(
        "/admin/leaderboard/round/", {"action": "publish", "_selected_action": [w["round"].pk]}, follow=True
    )
    assert "ARTB test Round 1 was not published" in response.content.decode()
    # A lower-case benchmark name stays lower case (Django's admin would capitalise a message's first letter).
    Benchmark.objects.filter(slug=BENCH).update(name="artb-t")
    response = client.post(
        "/admin/leaderboard/round/", {"action": "publish", "_selected_action": [w["round"].pk]}, follow=True
    )
    assert '<li class="error">artb-t Round 1 was not published' in response.content.decode()


# --- the round picker: staff find a round not published yet, the public never --------------------------------


def _picker(html: str) -> str:
    return html.split('class="round-picker"')[1].split("</nav>")[0] if 'class="round-picker"' in html else ""


@pytest.mark.parametrize("who", ["editor", "second", "tester"])
def test_staff_find_the_rounds_not_published_yet_in_the_round_picker_marked(client, w, who):
    publish(w)
    Round.objects.create(benchmark=w["round"].benchmark, key="r2", name="Round 2", status="draft")
    Round.objects.create(benchmark=w["round"].benchmark, key="r3", name="Round 3", status="preview")
    client.force_login(w[who])
    picker = _picker(client.get(f"/b/{BENCH}/").content.decode())
    assert f'href="/b/{BENCH}/r/r2/"' in picker and "Round 2 (draft, not public)" in picker
    assert f'href="/b/{BENCH}/r/r3/"' in picker and "Round 3 (preview, not public)" in picker
    assert "Round 1 (latest)" in picker


@pytest.mark.parametrize("who", ["anonymous", "plain", "vendor"])
def test_the_public_never_sees_a_round_not_published_in_the_picker(client, w, who):
    publish(w)
    Round.objects.create(benchmark=w["round"].benchmark, key="r2", name="Round 2", status="draft")
    Round.objects.create(benchmark=w["round"].benchmark, key="r3", name="Round 3", status="preview")
    if who != "anonymous":
        client.force_login(w[who])
    html = client.get(f"/b/{BENCH}/").content.decode()
    assert "Round 2" not in html and "Round 3" not in html and "/r/r2/" not in html and "/r/r3/" not in html
    assert client.get(f"/b/{BENCH}/r/r2/").status_code == 404
