//! The private numbers of a client's RSA key, as a tool prints them:
//! `openssl pkey -text` and `openssl rsa -text` print each integer's
//! big-endian bytes as `0b:26:a9:…` blocks (found by their bytes: they are
//! a piece of the key's DER, [`binary_values`](super::binary_values), read
//! back by [`runs`](super::runs)) and, `-text` in some builds, Python's
//! `private_numbers()`, JWK tools' debug output, as decimal integers.
//! Break-it 34 H2: `privateExponent` and `prime1` were stored whole in
//! both forms. [`key_values`] holds the decimal of each private integer
//! (d, p, q, dp, dq, qinv of PKCS#1 — the modulus and public exponent are
//! public), read from the key's PKCS#1 or PKCS#8 DER; of an EC key (SEC1
//! `ECPrivateKey`, or PKCS#8 holding one), the decimal of its private
//! scalar (`openssl pkey -text` prints it as the `priv:` block, Python's
//! `private_numbers().private_value` and JWK tools in decimal).

/// Fewest bytes of an integer held in decimal: the private numbers of a
/// key are 64+ bytes (512-bit primes of a 1024-bit key); smaller ones (the
/// version, the public exponent 65537) are not secret.
const MIN_INTEGER_BYTES: usize = 32;

/// The values to [`hold`](super::hold) for a key's DER (PKCS#1
/// `RSAPrivateKey`, or PKCS#8 holding one): the decimal of its private
/// integers, each looked for by its 12-digit windows as an encoding
/// ([`binary_values`](super::binary_values)); of an EC key, the decimal
/// of its private scalar. Neither (not DER): nothing (its bytes are held
/// by their hex and base64).
pub fn key_values(der: &[u8]) -> Vec<String> {
    let mut integers = Vec::new();
    collect_integers(der, 0, &mut integers);
    // PKCS#1's order: n, e, d, p, q, dp, dq, qinv; `e` is under 32 bytes.
    integers.retain(|i| i.len() >= MIN_INTEGER_BYTES);
    if integers.len() < 2 {
        return ec_scalar(der, 0).map(|scalar| vec![super::forms::encoded(&decimal(&scalar))]).unwrap_or_default();
    }
    integers[1..].iter().map(|i| super::forms::encoded(&decimal(i))).collect()
}

/// Sizes of an EC private scalar, bytes: 20 (secp160) to 66 (P-521).
const EC_SCALAR_BYTES: std::ops::RangeInclusive<usize> = 20..=66;

/// The private scalar of the EC key in `der`: the OCTET STRING after
/// `INTEGER 1` of a SEC1 `ECPrivateKey` SEQUENCE (RFC 5915 §3), found
/// inside SEQUENCEs and OCTET STRINGs (PKCS#8 wraps it in one) at most
/// `depth` 4 levels down.
fn ec_scalar(der: &[u8], depth: usize) -> Option<Vec<u8>> {
    if depth > 4 {
        return None;
    }
    let mut at = 0;
    let mut first = true;
    while let Some((tag, start, end)) = element(der, at) {
        if first && tag == 0x02 && der[start..end] == [1] {
            if let Some((0x04, s, e)) = element(der, end) {
                if EC_SCALAR_BYTES.contains(&(e - s)) {
                    return Some(der[s..e].to_vec());
                }
            }
        }
        if matches!(tag, 0x30 | 0x04) {
            if let Some(scalar) = ec_scalar(&der[start..end], depth + 1) {
                return Some(scalar);
            }
        }
        first = false;
        at = end;
    }
    None
}

/// The contents of the INTEGERs in `der` (in order, a leading `00` kept),
/// inside SEQUENCEs and OCTET STRINGs (PKCS#8 wraps the PKCS#1 key in one),
/// at most `depth` 4 levels down.
fn collect_integers(der: &[u8], depth: usize, out: &mut Vec<Vec<u8>>) {
    let mut at = 0;
    while let Some((tag, start, end)) = element(der, at) {
        match tag {
            0x02 => out.push(der[start..end].to_vec()),
            0x30 | 0x04 if depth < 4 => collect_integers(&der[start..end], depth + 1, out),
            _ => {}
        }
        at = end;
    }
}

/// The DER element at `at`: its tag, and where its contents start and end.
fn element(der: &[u8], at: usize) -> Option<(u8, usize, usize)> {
    let tag = *der.get(at)?;
    let first = *der.get(at + 1)?;
    let (len, start) = if first < 0x80 {
        (usize::from(first), at + 2)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 {
            return None;
        }
        let len = der.get(at + 2..at + 2 + n)?.iter().fold(0usize, |l, b| l << 8 | usize::from(*b));
        (len, at + 2 + n)
    };
    let end = start.checked_add(len)?;
    (end <= der.len()).then_some((tag, start, end))
}

/// The decimal of the big-endian unsigned integer `bytes`.
fn decimal(bytes: &[u8]) -> String {
    const BASE: u64 = 1_000_000_000;
    // Base 10⁹ limbs, least significant first.
    let mut limbs: Vec<u64> = Vec::new();
    for &b in bytes {
        let mut carry = u64::from(b);
        for limb in &mut limbs {
            let v = *limb * 256 + carry;
            *limb = v % BASE;
            carry = v / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
    }
    let Some((top, rest)) = limbs.split_last() else { return "0".into() };
    let mut out = top.to_string();
    for limb in rest.iter().rev() {
        out.push_str(&format!("{limb:09}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_of_big_endian_bytes() {
        assert_eq!(decimal(&[]), "0");
        assert_eq!(decimal(&[0x01, 0x00, 0x01]), "65537");
        assert_eq!(decimal(&[0xff; 16]), u128::MAX.to_string());
        assert_eq!(decimal(&[0x00, 0x3b, 0x9a, 0xca, 0x00]), "1000000000");
    }
}
