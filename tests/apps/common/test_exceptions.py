from apps.common.exceptions import ApplicationError


def test_it_carries_a_message_and_structured_extra():
    error = ApplicationError("Spec is invalid", extra={"field": "racks[0].units"})

    assert str(error) == "Spec is invalid"
    assert error.message == "Spec is invalid"
    assert error.extra == {"field": "racks[0].units"}


def test_extra_defaults_to_an_empty_dict_per_instance():
    first, second = ApplicationError("a"), ApplicationError("b")

    first.extra["x"] = 1

    assert second.extra == {}
