import { Arg, Args, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { ClientSecret } from './client-secret.types.js';
import { DEFAULT_OVERLAP_HOURS, RotateClientSecretArgs } from './dto/rotate-client-secret.args.js';
import type { SecretsService } from './secrets.service.js';

@Resolver()
export class SecretsResolver {
  constructor(private readonly secrets: SecretsService) {}

  @Authorized()
  @Mutation(() => ClientSecret, { description: 'Owner only: the app’s client secret in clear; every reveal is audited' })
  revealClientSecret(@Arg('appId', () => ID, { description: 'One of your apps (app_<ULID>)' }) appId: string, @Ctx() context: RequestContext): Promise<ClientSecret> {
    return this.secrets.reveal(requirePrincipal(context), appId, context.ipAddress);
  }

  @Authorized()
  @Mutation(() => ClientSecret, {
    description:
      'Owner only: a new client secret. During the overlap (24 h by default, 0 = at once, at most 168) webhook-signature carries both signatures and X-Platform-Signature keeps the old secret; while an overlap runs only overlapHours 0 is accepted (a leak: every older secret stops at once), anything else is CONFLICT with reason ROTATION_IN_PROGRESS; audited',
  })
  rotateClientSecret(@Args() { appId, overlapHours }: RotateClientSecretArgs, @Ctx() context: RequestContext): Promise<ClientSecret> {
    return this.secrets.rotate(requirePrincipal(context), appId, overlapHours ?? DEFAULT_OVERLAP_HOURS, context.ipAddress);
  }

  @Authorized()
  @Mutation(() => ClientSecret, { description: 'Owner only: ends a rotation’s overlap now, so only the new secret signs (both headers) from the next attempt on; audited' })
  finishClientSecretRotation(@Arg('appId', () => ID, { description: 'One of your apps (app_<ULID>)' }) appId: string, @Ctx() context: RequestContext): Promise<ClientSecret> {
    return this.secrets.finishRotation(requirePrincipal(context), appId, context.ipAddress);
  }
}
