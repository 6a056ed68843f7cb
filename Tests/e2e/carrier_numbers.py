"""Check digits for the tracking numbers the notice cases are written with, computed here from
each carrier's published rule (not by carrier-detect), so a case's number is valid because its
carrier says so."""


def _mod10(serial, weight_of_last):
    """USPS / Canada Post style: weights 3 and 1 alternating from the last serial digit."""
    total = 0
    for i, c in enumerate(reversed(serial)):
        total += int(c) * (weight_of_last if i % 2 == 0 else (4 - weight_of_last))
    return str((10 - total % 10) % 10)


def usps(serial):
    """A USPS IMpb number (92/93/94/95…): the serial plus its mod-10 check digit."""
    serial = serial.replace(" ", "")
    return serial + _mod10(serial, 3)


def ups(after_1z):
    """A UPS 1Z number: 15 characters after 1Z, letters counted as (code - 3) mod 10, every
    second one doubled, then the mod-10 check digit."""
    body = after_1z.replace(" ", "")
    total = 0
    for i, c in enumerate(body):
        v = int(c) if c.isdigit() else (ord(c) - 3) % 10
        total += v * (2 if i % 2 == 1 else 1)
    return "1Z" + body + str((10 - total % 10) % 10)


def fedex12(serial):
    """A FedEx Express 12-digit number: 11 digits weighted 3, 1, 7, … from the left, mod 11, mod 10."""
    weights = [3, 1, 7] * 4
    total = sum(int(c) * w for c, w in zip(serial, weights))
    return serial + str(total % 11 % 10)


def is_fedex12(number):
    return len(number) == 12 and number.isdigit() and fedex12(number[:11]) == number


def dhl10(serial):
    """A DHL Express waybill: 9 or 10 digits and their remainder by 7."""
    return serial + str(int(serial) % 7)


def s10(service, serial, country):
    """A UPU S10 item: two letters, 8 digits, the check digit (weights 8 6 4 2 3 5 9 7, mod 11),
    the issuing country."""
    total = sum(int(c) * w for c, w in zip(serial, [8, 6, 4, 2, 3, 5, 9, 7]))
    r = 11 - total % 11
    check = {10: 0, 11: 5}.get(r, r)
    return f"{service}{serial}{check}{country}"


def canada_post(serial15):
    return serial15 + _mod10(serial15, 3)
