"""Sign-up and sign-in with an email address and a password (Django's auth; the username is the email)."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.forms import AuthenticationForm
from django.core.validators import validate_email
from django.db import IntegrityError

from .services.addresses import account_create, account_email, address_taken

DUPLICATE = "An account with this email already exists. Sign in instead."


class SignUpForm(forms.Form):
    email = forms.EmailField(
        label="Email", max_length=150, widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True})
    )
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
        email = account_email(self.cleaned_data["email"])
        validate_email(email)  # NFKC can turn a valid address into an invalid one
        if len(email) > self.fields["email"].max_length:
            raise forms.ValidationError(f"An email address has at most {self.fields['email'].max_length} characters.")
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

    def save(self):
        """The new account, its address unconfirmed; None (with the duplicate error on the form) when the same
        address (or a look-alike) signed up in the moment since `clean_email` looked."""
        try:
            return account_create(email=self.cleaned_data["email"], password=self.cleaned_data["password1"])
        except IntegrityError:
            self.add_error("email", DUPLICATE)
            return None


class SignInForm(AuthenticationForm):
    username = forms.EmailField(
        label="Email", max_length=150, widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True})
    )

    def clean_username(self) -> str:
        return account_email(self.cleaned_data["username"])

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "That email and password do not match an account.",
    }
