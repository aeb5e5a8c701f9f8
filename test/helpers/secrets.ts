/**
 * One planted credential per family the scrubber knows (src/text/scrub.ts), for the tests that
 * check none of them reaches the search index or a model's request. Assembled at run time so that
 * the repository holds no token-shaped literal (secret scanners, push protection).
 */
const j = (...parts: string[]) => parts.join('')

/** A planted credential: the text as it would appear, and the part of it that must never survive scrubbing. */
export interface Planted {
  text: string
  secret: string
}

/** `before` + the secret (assembled from parts) + `after`. */
const plant = (before: string, secretParts: string[], after = ''): Planted => ({ text: before + j(...secretParts) + after, secret: j(...secretParts) })

export const PLANTED: Record<string, Planted> = {
  'PEM private key': plant('-----BEGIN RSA PRIVATE ', ['KEY-----\nMIIEowIBAAKCAQEAqZr7Lk2Vx9TmB4Qw\nZp3Ns8Hd1Rf6Ky0Uc5Xe7Wa2\n-----END RSA PRIVATE KEY-----']),
  'OpenSSH private key': plant('-----BEGIN OPENSSH PRIVATE ', ['KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n-----END OPENSSH PRIVATE KEY-----']),
  'PGP private key': plant('-----BEGIN PGP PRIVATE ', ['KEY BLOCK-----\n\nlQOYBGW3xQ8BCADq9Lm2Vb7Nc4Zt8Wr1\n-----END PGP PRIVATE KEY BLOCK-----']),
  'AWS access key id': plant('', ['AKIA', 'Z7QK4MNB2XRT5WPL']),
  'AWS secret access key': plant('AWS_SECRET_ACCESS_KEY=', ['kV8rT2mQ9xZ4nB7w', 'L1pJ6sD3fG0hY5cE8uI2oA9t']),
  'GCP API key': plant('', ['AIza', 'SyB8kQ2vX9mZ4pL7nR3tW6yC1dF5hJ0gK2s']),
  'GCP service-account private_key': plant('{"type": "service_account", "private_key": "-----BEGIN PRIVATE ', ['KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDf7Wz3Qk\\n-----END PRIVATE KEY-----'], '\\n"}'),
  'Azure storage connection string': plant('DefaultEndpointsProtocol=https;AccountName=gitwhytest;AccountKey=', ['Xq9Lm2Vb7Nc4Zt8Wr1Ks5Jd3Hf6Gp0Y', 'a2Ue9Io4Py7Ta1Sd3Fg6Hj8Kl0Zx5Cv2Bn7Mq4We1Rt9Yu3I=='], ';EndpointSuffix=core.windows.net'),
  'Azure SAS token': plant('https://gitwhytest.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=', ['Pz4Xw8Qm2Lk6Vn9Bt3Cy7', 'Rd1Fh5Js0Ga4Ue8Io2%3D']),
  'Azure SQL connection-string password': plant('Server=tcp:db.example.test;Database=app;User Id=sa;Password=', ['Wq7Zt2Lx', '9Vn4Rb8K'], ';'),
  'GitHub token': plant('', ['ghp_', 'Q7wE9rT2yU4iO6pA8sD1fG3hJ5kL7zX9cV2b']),
  'GitLab token': plant('', ['glpat-', 'Vb8Nm2Qw4Er6Ty9Ui1Op3A']),
  'Slack bot token': plant('', ['xoxb-', '284736501928-3948572019384-Kq8Zm3Vx7Lp2Rt9Wn4Yb6Cd1']),
  'Slack webhook': plant('https://hooks.slack.com/services/', ['T0A1B2C3D/B4E5F6G7H/', 'Qz8Xw2Lk5Vn9Mt3Rb7Yc1Pd4F']),
  'Stripe secret key': plant('', ['sk_live_', '51Hq8ZmRt3Vx9Lk2Pw7Nb4Yc6Df1Gh5Jk']),
  'OpenAI key': plant('', ['sk-proj-', 'Tq3Wz8Xk2Lm7Vn4Bp9Rc1Yd6Fh0Js5Ga8Ue2Io7Py4']),
  'Anthropic key': plant('', ['sk-ant-api03-', 'Mv7Qx2Zk9Lp4Wn8Rt3Bc6Yd1Fh5Js0Ga7Ue2Io9Py4Tr6Sd1Fg8Hj3Kl5Zx0Cv7Bn2Mq9We4Rt6Yu1Io-QwAA']),
  JWT: plant('Bearer ', ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.eyJzdWIiOiJnaXR3aHktdGVzdCIsImlhdCI6MTcwNDA2NzIwMH0.Kq8Zm3Vx7Lp2Rt9Wn4Yb6Cd1Fh5Js0Ga4Ue8Io2Pz4']),
  'password in a postgres URL': plant('postgres://app:', ['Rk7mQ2xZ', '9vLw4Tn8'], '@db.internal:5432/prod'),
  'password in a mongodb+srv URL': plant('mongodb+srv://svc:', ['Hb3Vx8Qn', '2Mz6Lk9P'], '@cluster0.example.test/app'),
  'generic "token": "…" assignment': plant('{"client_token": "', ['n4Bq8Wz2Xk', '7Lm3Vr9Tc1Yd5F'], '"}'),
  'generic KEY=value assignment': plant('SIGNING_SECRET=', ['p9Lk3Vx7', 'Qm2Zt8Wn4R']),
  'high-entropy string': plant('the session is ', ['Zr8Kq2', 'Vw7Xm4Lp9Tn3Bc6Yd1Fh5'], ' now'),
}
