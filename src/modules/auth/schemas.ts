import { Type } from 'typebox';

// Laravel reads these with `$request->boolean()` (or the `accepted` rule): any value is allowed and
// only true, 1, "1", "true", "on" and "yes" count, so a type error here would be a 422 Fortify never gives.
const Flag = Type.Unknown({ description: 'true, 1, "1", "true", "on" or "yes" count as true; anything else as false.' });
const Email = Type.String({ format: 'email', maxLength: 255 });
const NewPassword = Type.String({ minLength: 8 });

export const LoginBody = Type.Object({
  email: Type.String(),
  password: Type.String(),
  remember: Type.Optional(Flag),
});

export const ChallengeBody = Type.Object({
  code: Type.Optional(Type.String()),
  recovery_code: Type.Optional(Type.String()),
});

export const RegisterBody = Type.Object(
  {
    name: Type.String({ maxLength: 255 }),
    email: Email,
    password: NewPassword,
    password_confirmation: Type.Optional(Type.String()),
    agreement: Type.Optional(Flag),
    // SPAs often carry the referral id from a URL, so a string of digits is accepted as well.
    ref: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{1,15}$' })], {
        description: 'Referrer user id; 0 when none.',
        'x-message': 'The selected :attribute is invalid.',
      }),
    ),
    remember: Type.Optional(Flag),
  },
  { 'x-confirmed': ['password'], 'x-accepted': ['agreement'] },
);

export const ForgotPasswordBody = Type.Object({ email: Type.String({ format: 'email' }) });

export const ResetPasswordBody = Type.Object({
  token: Type.String(),
  email: Type.String({ format: 'email' }),
  password: Type.String(),
  password_confirmation: Type.Optional(Type.String()),
});

export const ConfirmPasswordBody = Type.Object({ password: Type.Optional(Type.Unknown()) });

export const ConfirmedStatusQuery = Type.Object({ seconds: Type.Optional(Type.Integer({ minimum: 0 })) });

export const EnableTwoFactorBody = Type.Object({ force: Type.Optional(Flag) });

export const ConfirmTwoFactorBody = Type.Object({ code: Type.Optional(Type.String()) });

// The length and confirmation rules run in the service, beside the current-password check.
export const UpdatePasswordBody = Type.Object({
  current_password: Type.String(),
  password: Type.String({ description: 'At least 8 characters, equal to password_confirmation.' }),
  password_confirmation: Type.Optional(Type.String()),
});

export const UpdateProfileBody = Type.Object({
  name: Type.String({ maxLength: 255 }),
  email: Type.Optional(Email),
});

export const LoginResponse = Type.Object({ two_factor: Type.Boolean() });
export const ConfirmedResponse = Type.Object({ confirmed: Type.Boolean() });
export const QrCodeResponse = Type.Union([
  Type.Object({ svg: Type.String(), url: Type.String() }),
  Type.Array(Type.String(), { maxItems: 0, description: '`[]` while two-factor is off.' }),
]);
export const SecretKeyResponse = Type.Object({ secretKey: Type.String() });
export const RecoveryCodesResponse = Type.Array(Type.String());
