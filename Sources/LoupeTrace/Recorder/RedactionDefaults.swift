extension RedactionPolicy {
    /// Headers that carry credentials, session ids, API keys or signatures in common APIs and gateways.
    ///
    /// Matched loosely (see ``RedactionNames``): `X-Api-Key` also covers `x_api_key` and `X-APIKEY`.
    public static let defaultHeaderNames: RedactionNames = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
        "X-Api-Key", "Api-Key", "X-Api-Token", "X-Auth-Token", "X-Access-Token", "X-Refresh-Token",
        "X-Session-Token", "X-Session-Id", "X-Amz-Security-Token", "X-Amz-Credential", "X-Amz-Signature",
        "X-CSRF-Token", "X-XSRF-Token", "X-Goog-Api-Key", "Private-Token", "Job-Token", "X-Vault-Token",
        "X-Client-Secret", "Ocp-Apim-Subscription-Key", "X-Functions-Key", "X-Shopify-Access-Token",
        "X-Gitlab-Token", "X-Hub-Signature", "X-Hub-Signature-256", "X-Webhook-Secret", "X-Auth", "Authentication",
    ]

    /// Names that mean a credential wherever they appear: in a query, a form or a JSON body.
    static let credentialNames: [String] = [
        "password", "passwd", "pwd", "passphrase", "new_password", "old_password", "current_password",
        "password_confirmation", "secret", "client_secret", "app_secret", "api_secret", "secret_key",
        "secret_access_key", "aws_secret_access_key", "token", "access_token", "refresh_token", "id_token",
        "auth_token", "session_token", "api_token", "bearer_token", "csrf_token", "xsrf_token",
        "authenticity_token", "api_key", "private_key", "client_assertion", "otp", "session_id", "code_verifier",
    ]

    /// Query items redacted inside URLs (and form bodies): the credential names plus the signatures and keys
    /// that presigned URLs and key-in-URL APIs carry.
    ///
    /// `key` is here because key-in-URL APIs use it (`?key=AIza…`); `code` (OAuth's authorization code) is not,
    /// because it names innocent things too often: it is redacted where it is an OAuth code (beside `state` or
    /// `redirect_uri`, or on a redirect target), and everywhere with `policy.queryItemNames.insert("code")`.
    public static let defaultQueryItemNames = RedactionNames(credentialNames + [
        "auth", "key", "jwt", "sig", "signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "x-goog-signature", "x-goog-credential", "awsaccesskeyid",
    ])

    /// Fields redacted at any depth of JSON bodies and in form bodies, one list for both: the credential names,
    /// the signatures and tokens URLs carry, key material and card data.
    ///
    /// The query list's `key` is not here: as a JSON key it names innocent things too often (`{"key": "photos/1.jpg"}`,
    /// a cache's or a flag's key), as `code` does in a query.
    public static let defaultFieldNames = RedactionNames(credentialNames + [
        "auth", "jwt", "sig", "signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "x-goog-signature", "x-goog-credential", "awsaccesskeyid",
        "private_key", "client_key", "signing_key", "encryption_key", "card_number", "cvv", "cvc",
    ])
}
