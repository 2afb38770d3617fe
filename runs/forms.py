"""Forms of the vendor preview pages."""

from __future__ import annotations

from django import forms

from .models import DisputeReason


class DisputeForm(forms.Form):
    reason = forms.ChoiceField(choices=DisputeReason.choices, widget=forms.RadioSelect)
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        max_length=5000,
        help_text="What is factually wrong: the version, plan or environment the run used.",
    )
