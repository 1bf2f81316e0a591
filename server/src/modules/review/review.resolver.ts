import { Arg, Authorized, Ctx, ID, Int, Mutation, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import { ConnectionType, PAGE_ARGS } from '../../platform/connection.js';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { Topic } from '../../platform/pubsub.js';
import { ReviewDecisionInput } from './dto/review-decision.input.js';
import { Notification } from './notification.entity.js';
import { ReviewDecision } from './review-decision.entity.js';
import type { LiveNotification, NotificationService } from './notification.service.js';
import type { ReviewService } from './review.service.js';

@ObjectType({ description: 'A page of notifications (Relay connection)' })
export class NotificationConnection extends ConnectionType(Notification, 'Notification') {}

@Resolver()
export class ReviewResolver {
  constructor(
    private readonly review: ReviewService,
    private readonly notificationService: NotificationService,
  ) {}

  @Authorized('REVIEWER')
  @Mutation(() => ReviewDecision, { description: 'Reviewer: approve or reject an app pending review (never one’s own); the developer is notified' })
  decideReview(
    @Arg('input', { description: 'The app, the outcome and, for a rejection, the reasons' }) input: ReviewDecisionInput,
    @Ctx() context: RequestContext,
  ): Promise<ReviewDecision> {
    return this.review.decide(requirePrincipal(context), input);
  }

  @Authorized()
  @Query(() => NotificationConnection, { description: 'Your notifications, newest first' })
  notifications(
    @Ctx() context: RequestContext,
    @Arg('first', () => Int, { nullable: true, description: PAGE_ARGS.first }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: PAGE_ARGS.after }) after?: string | null,
    @Arg('last', () => Int, { nullable: true, description: PAGE_ARGS.last }) last?: number | null,
    @Arg('before', () => String, { nullable: true, description: PAGE_ARGS.before }) before?: string | null,
  ): Promise<NotificationConnection> {
    return this.notificationService.list(requirePrincipal(context).userId, { first, after, last, before });
  }

  @Authorized()
  @Mutation(() => Notification, { description: 'Marks one of your notifications read (readAt stays at the first time)' })
  markNotificationRead(@Arg('id', () => ID, { description: 'ntf_<ULID>' }) id: string, @Ctx() context: RequestContext): Promise<Notification> {
    return this.notificationService.markRead(requirePrincipal(context).userId, id);
  }

  @Authorized()
  @Subscription(() => Notification, {
    topics: Topic.NOTIFICATION_ADDED,
    topicId: ({ context }: { context: RequestContext }) => requirePrincipal(context).userId,
    description: 'Your new notifications, live',
  })
  async notificationAdded(@Root() payload: LiveNotification, @Ctx() context: RequestContext): Promise<Notification> {
    if ('byId' in payload) return this.notificationService.find(requirePrincipal(context).userId, payload.id);
    // The payload crossed PostgreSQL NOTIFY as JSON; dates arrive as strings.
    const sent = payload as Notification & { createdAt: string | Date; readAt: string | Date | null; since: string | Date | null };
    return Object.assign(new Notification(), sent, {
      createdAt: new Date(sent.createdAt),
      readAt: sent.readAt ? new Date(sent.readAt) : null,
      since: sent.since ? new Date(sent.since) : null,
    });
  }
}
