"""Sign-up and sign-in with an email address and a password (Django's auth; the username is the address in its
canonical form, `voting.mailbox`)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.forms import AdminUserCreationForm, AuthenticationForm, UserChangeForm
from django.db import IntegrityError

from .mailbox import address_canonical
from .services.addresses import MailNotSent, account_create, address_taken

DUPLICATE = "An account with this email already exists. Sign in instead."
ADDRESS_LENGTH = 150  # the username's length


class AddressField(forms.CharField):
    """An email address as typed, cleaned to its canonical form; a sentence saying why when the rule refuses
    it. (Not Django's EmailField: it would judge the address as typed, before the rule has read it.)"""

    widget = forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True})

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("label", "Email")
        super().__init__(max_length=320, **kwargs)

    def clean(self, value):
        address = address_canonical(super().clean(value))
        if len(address) > ADDRESS_LENGTH:
            raise forms.ValidationError(f"An email address has at most {ADDRESS_LENGTH} characters.")
        return address


class SignUpForm(forms.Form):
    email = AddressField()
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label="Password again", strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        if get_user_model().objects.filter(username__iexact=email).exists() or address_taken(email):
            raise forms.ValidationError(DUPLICATE)
        return email

    def clean(self) -> dict:
        data = super().clean()
        p1, p2 = data.get("password1"), data.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", "The two passwords differ.")
        elif p1 and data.get("email"):
            user = get_user_model()(username=data["email"], email=data["email"])
            try:
                password_validation.validate_password(p1, user)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return data

    def save(self, *, link_base: str):
        """The new account, its address unconfirmed and the link mailed; None, with the error on the form and
        nothing stored, when the same mailbox signed up in the moment since `clean_email` looked or when the mail
        could not be sent."""
        email = self.cleaned_data["email"]
        try:
            return account_create(email=email, password=self.cleaned_data["password1"], link_base=link_base)
        except IntegrityError:
            self.add_error("email", DUPLICATE)
        except MailNotSent:
            self.add_error(
                "email", f"We could not send mail to {email}: check the address, or try again in a few minutes."
            )
        return None


class SignInForm(AuthenticationForm):
    username = AddressField()

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "That email and password do not match an account.",
    }


class AccountNameMixin:
    """The admin's forms for accounts: the name is an email address, cleaned to its canonical form and refused
    when another account holds its mailbox (or one that looks like it). A name left as it was is not judged
    again (an account from before the rule keeps its name until staff change it)."""

    instance: Any
    cleaned_data: dict
    changed_data: list[str]

    def clean_username(self) -> str:
        typed = self.cleaned_data.get("username") or ""
        if self.instance.pk and "username" not in self.changed_data:
            return typed
        address = address_canonical(typed)
        other = self.instance if self.instance.pk else None
        same_name = get_user_model().objects.filter(username__iexact=address).exclude(pk=getattr(other, "pk", None))
        if same_name.exists() or address_taken(address, other_than=other):
            raise forms.ValidationError(
                "An account with this address, one delivered to the same mailbox, or one that looks like it exists."
            )
        return address


class AccountCreationForm(AccountNameMixin, AdminUserCreationForm):
    pass


class AccountChangeForm(AccountNameMixin, UserChangeForm):
    pass


class AdminSignInForm(AdminAuthenticationForm):
    """The admin's sign-in: an address is looked up in its canonical form, as on the site; any other name (an
    account made by `createsuperuser`) as typed."""

    def clean_username(self) -> str:
        typed = self.cleaned_data.get("username") or ""
        try:
            return address_canonical(typed)
        except forms.ValidationError:
            return typed
