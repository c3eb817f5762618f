# The Apollo fullstack tutorial's schema (schema.graphql beside this file, read as it is: Ariadne
# is schema first) served by Ariadne, ASGI under uvicorn:
#
#   .build/graphql/bin/python scripts/graphql/ariadne_server.py --port N --image-base URL --log FILE
#
# Resolvers as the tutorial's: launches through its paginateResults (tutorial.py), missionPatch
# LARGE unless asked SMALL. The knobs (tutorial.DEFAULT_KNOBS, POST /admin/knobs) make resolvers
# throw (missionPatch, id), guard fields behind the token, or serve the schema without a field.
import os
import re
import sys

from ariadne import EnumType, MutationType, ObjectType, QueryType, make_executable_schema
from ariadne.asgi import GraphQL
from graphql import GraphQLError

import tutorial

STATE = None
SDL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.graphql")


def unauthenticated(what):
    return GraphQLError("You must be logged in to see " + what, extensions={"code": "UNAUTHENTICATED"})


def headers(info):
    return info.context["request"].headers


query = QueryType()
mutation = MutationType()
launch_type = ObjectType("Launch")
mission_type = ObjectType("Mission")
connection_type = ObjectType("LaunchConnection")
patch_size = EnumType("PatchSize", {"SMALL": "SMALL", "LARGE": "LARGE"})


@query.field("launches")
def resolve_launches(_, info, pageSize=tutorial.DEFAULT, after=None):
    if STATE.needs_auth() and not STATE.authorized(headers(info)):
        raise unauthenticated("launches")
    return STATE.launches_page(pageSize, after)


@query.field("launch")
def resolve_launch(_, info, id):
    if STATE.needs_auth() and not STATE.authorized(headers(info)):
        raise unauthenticated("a launch")
    return STATE.launch(id)


@query.field("me")
def resolve_me(*_):
    return None


@mutation.field("login")
def resolve_login(_, info, email=None):
    return STATE.login_token(email)


@launch_type.field("id")
def resolve_id(launch, info):
    if STATE.id_fails(launch["id"]):
        raise Exception("could not resolve the id of a launch")
    return launch["id"]


@launch_type.field("mission")
def resolve_mission(launch, info):
    return dict(launch["mission"], launchId=launch["id"])


@launch_type.field("rocket")
def resolve_rocket(launch, info):
    if STATE.guarded("Launch.rocket", headers(info)):
        raise unauthenticated("the rocket")
    return launch["rocket"]


@launch_type.field("isBooked")
def resolve_is_booked(launch, info):
    if STATE.guarded("Launch.isBooked", headers(info)):
        raise unauthenticated("whether you booked it")
    return False  # as the tutorial's isBookedOnLaunch for no user


@mission_type.field("missionPatch")
def resolve_mission_patch(mission, info, size=None):
    if STATE.patch_fails(mission["launchId"]):
        raise Exception("the image service did not answer")
    return STATE.mission_patch(mission, size)


@connection_type.field("hasMore")
def resolve_has_more(page, info):
    return page["hasMore"]


def build_schema(without=None):
    with open(SDL_PATH) as f:
        sdl = f.read()
    if without == "Rocket.type":
        sdl = re.sub(r"(type Rocket \{[^}]*?)\n  type: String", r"\1", sdl)
        assert "type: String" not in sdl
    return make_executable_schema(sdl, query, mutation, launch_type, mission_type, connection_type, patch_size)


def make_app(image_base, log_path):
    global STATE
    STATE = tutorial.State(image_base, log_path)
    apps = {None: GraphQL(build_schema(), debug=False),
            "Rocket.type": GraphQL(build_schema(without="Rocket.type"), debug=False)}

    async def graphql_app(scope, receive, send):
        await apps[STATE.knobs["removeField"]](scope, receive, send)

    return STATE, tutorial.wrap(STATE, graphql_app, "ariadne")


if __name__ == "__main__":
    tutorial.serve(make_app, sys.argv[1:], "ariadne")
